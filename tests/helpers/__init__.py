"""What several test modules share: helpers and fixtures, so that no test module imports
another (tests/packaging/test_architecture.py checks it). Fixtures defined here are imported by the
modules that use them, or by tests/conftest.py for every module."""
