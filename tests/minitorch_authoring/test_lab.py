"""`make lab`: JupyterLab starts headless on a free local port and serves the notebooks, with the
learner's settings: Markdown opens rendered, nbgrader's instructor interface is hidden."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from minitorch_authoring import lab
from minitorch_authoring.repository import ROOT


def test_allow_root_only_as_root(monkeypatch):
    monkeypatch.setattr(lab, "is_root", lambda: False)
    assert "--allow-root" not in lab.command(8888, "t")
    monkeypatch.setattr(lab, "is_root", lambda: True)
    assert "--allow-root" in lab.command(8888, "t")


def test_instructor_lab_keeps_all_of_nbgrader():
    learner = " ".join(lab.command(8888, "t"))
    instructor = " ".join(lab.command(8888, "t", instructor=True))
    for extension in lab.INSTRUCTOR_SERVER_EXTENSIONS:
        assert f"{extension}=False" in learner and extension not in instructor
    assert "app_settings_dir" in learner and "app_settings_dir" not in instructor


def test_lab_uses_the_learners_tensor(monkeypatch):
    monkeypatch.setenv("MINITORCH_IMPL", "reference")
    assert lab.env()["MINITORCH_IMPL"] == "learner"


def _get(url: str, token: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, b""


@pytest.mark.slow
def test_lab_server_lists_the_notebooks():
    port = lab.free_port(18888)
    token = "minitorch-test-token"
    proc = subprocess.Popen(
        [sys.executable, "-m", "minitorch_authoring.lab", "--port", str(port), "--token", token,
         "--no-browser"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "MINITORCH_LANG": "es"},  # the default route (English: notebooks/en)
        start_new_session=True)
    try:
        first = proc.stdout.readline() + proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/lab/tree/notebooks?token={token}" in first, first
        url = f"http://127.0.0.1:{port}/api/contents/notebooks"
        deadline = time.monotonic() + 90
        status = None
        while time.monotonic() < deadline:
            assert proc.poll() is None, "jupyter lab exited early"
            try:
                status, body = _get(url, token)
            except OSError:
                time.sleep(0.5)
                continue
            if status == 200:
                break
            time.sleep(0.5)
        assert status == 200, f"no answer from {url}"
        listed = {item["name"] for item in json.loads(body)["content"]
                  if item["type"] == "notebook"}
        expected = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
        assert expected and listed == expected
        assert _get(url)[0] == 403  # the token is required
        status, page = _get(f"http://127.0.0.1:{port}/lab", token)
        assert status == 200
        config = json.loads(re.search(rb'<script id="jupyter-config-data"[^>]*>(.*?)</script>',
                                      page, re.S).group(1))
        disabled = set(config["disabledExtensions"])
        instructor_ui = {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                         "@jupyter/nbgrader:course-list"}
        assert instructor_ui <= disabled, disabled
        assert not {"@jupyter/nbgrader:assignment-list",
                    "@jupyter/nbgrader:validate-assignment"} & disabled, disabled
        assert _get(f"http://127.0.0.1:{port}/formgrader", token)[0] == 404
        status, body = _get(f"http://127.0.0.1:{port}/lab/api/settings/"
                            "@jupyterlab/docmanager-extension:plugin", token)
        viewers = json.loads(body)["schema"]["properties"]["defaultViewers"]["default"]
        assert status == 200 and viewers.get("markdown") == "Markdown Preview", viewers
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # our own process group only
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        proc.stdout.close()
