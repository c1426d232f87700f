import pytest

pytest_plugins: list[str] = []


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "/e2e/" in str(item.fspath) or "/integration/" in str(item.fspath):
            item.add_marker(pytest.mark.timeout(600))
