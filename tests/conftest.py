import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
# `gridrules solve` builds extension modules in the background after its levels, and searches use those built
# (gridrules/compiled/extension.py): not in the tests, which would share the cores with the builds and run other
# searches than they say; test_extension.py turns them on where it tests them
os.environ.setdefault("GRIDRULES_EXTENSIONS", "0")
sys.path.insert(0, str(Path(__file__).parent))  # shared test helpers (helpers.py)
pytest.register_assert_rewrite("helpers")  # (their asserts show the values compared, as tests' own do)

settings.register_profile("ci", max_examples=40, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", max_examples=40, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def root() -> Path:
    return ROOT
