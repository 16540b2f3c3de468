"""The README is the front door: its Python examples run, and its commands are the ones CI uses."""
import pathlib
import re

import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _python_blocks():
    return re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_examples():
    assert len(_python_blocks()) >= 2


def test_readme_python_examples_run(capsys):
    for i, block in enumerate(_python_blocks()):
        namespace = {"__name__": f"readme_example_{i}"}
        exec(compile(block, f"README.md example {i}", "exec"), namespace)
        assert capsys.readouterr().out.strip(), f"example {i} printed nothing"


def test_script_example_is_short_and_summarises():
    block = _python_blocks()[0]
    code = [line for line in block.strip().splitlines() if line.strip()]
    assert len(code) <= 12
    ns = {"__name__": "readme_script"}
    exec(compile(block, "README script", "exec"), ns)
    assert isinstance(ns["result"].summary(), pd.DataFrame)


def test_custom_adversary_example_is_at_most_25_lines_and_registers():
    index, block = [(i, b) for i, b in enumerate(_python_blocks()) if "register_environment" in b][0]
    assert len(block.strip().splitlines()) <= 25
    import onlinelab as ol
    ns = {"__name__": f"readme_example_{index}"}  # the module name the other test used: re-registering is allowed
    exec(compile(block, "README adversary", "exec"), ns)
    assert "bottom-direction" in ol.environment_names()
    assert ns["result"].meta["environments"]


def test_quick_start_commands_match_ci():
    bash = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    assert "onlinelab run" in bash[0]
    test_cmd = bash[1].strip()
    assert "pytest" in test_cmd
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest -q" in test_cmd and ".venv/bin/python -m pytest -q" in ci
