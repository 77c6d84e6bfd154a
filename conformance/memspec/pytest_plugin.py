"""The pytest plugin, registered as ``memspec.pytest_plugin`` (``-p memspec.pytest_plugin``);
its hooks live in ``memspec.plugin.hooks``."""

pytest_plugins = ["memspec.plugin.hooks"]
