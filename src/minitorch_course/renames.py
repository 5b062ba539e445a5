"""Names a notebook saved from an older release may still hold, and their names today.

A class in progress hands in notebooks saved from the release it was given. Since issue 24 the
answer variables (``respuesta_01``, ``pendientes``...) and nbgrader's grade ids (``pregunta_NN``,
``respuesta_NN``, ``prediccion_sum``, ``silu_prima``...) are English, identical in both
languages. ``RENAMED`` is the one table of what was renamed, per notebook; its readers:

- ``quiz.read_answers`` / ``read_literals`` read an old answer variable as its new one (the
  progress report, and the scores of record);
- the class run rewrites its copy of each submission with today's names before nbgrader or the
  scores of record read it (``minitorch_grading.job.snapshot``), so neither meets an old name;
- ``python -m minitorch_grading.course build`` renames the cells of a gradebook created with the
  old grade ids, keeping their grades, and the grade ids of the notebooks already autograded
  (``course.rename_graded_cells``; docs/INSTRUCTOR.md).

A name is added here when it changes; none is ever removed while a release holding it may still
be handed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The quiz of the releases before these renames: 13 questions (history, not today's count:
# a question added later never had an old name). quiz.py reads this module (no import back).
OLD_QUIZ = range(1, 14)


@dataclass(frozen=True)
class Renamed:
    """One notebook's renamed names: nbgrader grade ids and answer variables, old -> new."""

    grade_ids: dict[str, str] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)


RENAMED: dict[str, Renamed] = {
    "00-tensor-skeleton": Renamed(variables={
        "orden_topologico": "topo_order", "forma_grad_x": "grad_x_shape",
        "forma_grad_s": "grad_s_shape"}),
    "01-elementwise-ops": Renamed(variables={"signo_div": "div_sign",
                                             "pow_en_cero": "pow_at_zero"}),
    "02-reductions-and-shapes": Renamed(variables={"forma_error": "error_shape",
                                                   "forma_silenciosa": "silent_shape"}),
    "03-matmul-softmax-ce": Renamed(variables={"ingenua_finita": "naive_finite",
                                               "perdida_fusionada": "fused_loss"}),
    "04-gradcheck-and-properties": Renamed(
        grade_ids={"prediccion_curva_u": "answer_u_curve",
                   "check_prediccion_curva_u": "check_answer_u_curve",
                   "prediccion_sum": "answer_passes_with_sum",
                   "check_prediccion_sum": "check_answer_passes_with_sum"},
        variables={"log10_eps_optimo": "log10_best_eps", "pendientes": "slopes",
                   "pasa_con_sum": "passes_with_sum"}),
    "06-extension-silu": Renamed(
        grade_ids={"silu_prima": "answer_silu_prime", "check_silu_prima": "check_answer_silu_prime",
                   "nota_silu": "silu_note"},
        variables={"silu_prima": "silu_prime"}),
    "07-quiz": Renamed(
        grade_ids={**{f"pregunta_{n:02d}": f"question_{n:02d}" for n in OLD_QUIZ},
                   **{f"respuesta_{n:02d}": f"answer_{n:02d}" for n in OLD_QUIZ}},
        variables={f"respuesta_{n:02d}": f"answer_{n:02d}" for n in OLD_QUIZ}),
}


def old_variables() -> dict[str, str]:
    """Every notebook's old answer variables -> their names today (the names are unique)."""
    return {old: new for r in RENAMED.values() for old, new in r.variables.items()}


def grade_ids(notebook: str) -> dict[str, str]:
    """``notebook``'s old grade ids -> their ids today (empty: none changed)."""
    renamed = RENAMED.get(notebook)
    return dict(renamed.grade_ids) if renamed else {}


def variables(notebook: str) -> dict[str, str]:
    """``notebook``'s old answer variables -> their names today (empty: none changed)."""
    renamed = RENAMED.get(notebook)
    return dict(renamed.variables) if renamed else {}
