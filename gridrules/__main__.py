"""`python -m gridrules ...`: the same as the `gridrules` command."""
from .cli import main

if __name__ == "__main__":
    main()
