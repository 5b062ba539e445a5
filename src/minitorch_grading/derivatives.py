"""Derivatives the learner never wrote: backward closures that compute finite differences.

Instructor tooling (never ships). A backward that re-evaluates its op's forward at shifted
inputs, ``(f(x + h) - f(x - h)) / (2 h)``, matches torch to 1e-7 on most cases, and timing
cannot tell a vectorised difference from an analytic backward on elementwise ops. This module
reads a ``tensor.py`` (``ast``, never run) and names the ops whose backward closure

- divides a difference by a step: ``(f(a) - f(b)) / d`` with the same ``f`` on both sides, or
  ``(p - m) / d`` / ``(f(x + h) - y) / h`` where the step is a small constant (< 1e-2) or a
  name such as ``h``, ``eps``, ``delta``;
- calls a helper (of the same file) that does, or calls its own op again (``self.exp(...)``,
  ``Tensor.exp(...)``, ``Tensor(...).exp()``).

The record scores those ops' derivative suites as failed (no more than the same file without
them) and says why in the learner's language. Schemes this does not see (a complex step, a
difference hidden behind ``getattr``) are named in docs/INSTRUCTOR.md's threat model as at best
detected.
"""

from __future__ import annotations

import ast

STEP_NAMES = frozenset({"h", "eps", "epsilon", "delta", "step", "dx", "hh", "tiny"})
SMALL = 1e-2


def _is_step(node: ast.AST) -> bool:
    """A small constant or a step-like name somewhere in ``node``."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, int | float) \
                and not isinstance(sub.value, bool) and 0 < abs(sub.value) < SMALL:
            return True
        if isinstance(sub, ast.Name) and sub.id.lower().strip("_") in STEP_NAMES:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr.lower().strip("_") in STEP_NAMES:
            return True
    return False


def _quotient(node: ast.AST) -> bool:
    """``node`` divides a difference (anywhere in its numerator: ``g * (p - m) / d``) by
    something (see the module's docstring)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)):
        return False
    operands = (ast.Name, ast.Call, ast.Subscript, ast.Attribute)
    for sub in ast.walk(node.left):
        if not (isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Sub)):
            continue
        left, right = sub.left, sub.right
        if isinstance(left, ast.Call) and isinstance(right, ast.Call) \
                and ast.dump(left.func) == ast.dump(right.func) \
                and ast.dump(left) != ast.dump(right):
            return True
        if _is_step(node.right) and isinstance(left, operands) \
                and isinstance(right, operands):
            return True
    return False


def _called(node: ast.AST) -> set[str]:
    """Names ``node`` calls (``f(...)``, ``x.f(...)``)."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            if isinstance(sub.func, ast.Name):
                found.add(sub.func.id)
            elif isinstance(sub.func, ast.Attribute):
                found.add(sub.func.attr)
    return found


def _calls_itself(closure: ast.AST, method: str) -> bool:
    """``self.M(...)``, ``Tensor.M(...)``, ``Tensor(...).M()``, ``type(self).M(...)``."""
    for sub in ast.walk(closure):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                and sub.func.attr == method:
            owner = sub.func.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "Tensor", "cls"):
                return True
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) \
                    and owner.func.id in ("Tensor", "type"):
                return True
    return False


def finite_differences(source: str) -> dict[str, str]:
    """{method name: what its backward does} for the methods of ``class Tensor`` whose backward
    closure computes finite differences (a file that does not parse: {})."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    # helpers: module-level functions and private methods of Tensor (``_name``), never an op
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor"]
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    functions += [n for c in classes for n in c.body
                  if isinstance(n, ast.FunctionDef) and n.name.startswith("_")
                  and not n.name.startswith("__")]
    helpers = {f.name for f in functions if any(_quotient(n) for n in ast.walk(f))}
    for _ in range(3):  # helpers calling helpers
        helpers |= {f.name for f in functions if _called(f) & helpers}
    found: dict[str, str] = {}
    for cls in classes:
        for method in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
            for closure in (n for n in ast.walk(method)
                            if isinstance(n, ast.FunctionDef) and n is not method):
                if any(_quotient(n) for n in ast.walk(closure)):
                    found[method.name] = "divides a difference of evaluations by a step"
                elif _called(closure) & helpers:
                    name = sorted(_called(closure) & helpers)[0]
                    found[method.name] = f"calls {name}, which divides differences by a step"
                elif _calls_itself(closure, method.name):
                    found[method.name] = f"calls {method.name} itself"
    return found
