"""The environment library; every module in this package is imported, so its environments register by name.

Drop a file defining a subclass of `onlinelab.Environment` decorated with
``@onlinelab.register_environment("my-name")`` into this folder and it is available to
``onlinelab.make_environment("my-name")``, to configs and to the CLI.
"""
import importlib
import pkgutil

for _mod in pkgutil.iter_modules(__path__):
    if not _mod.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_mod.name}")
