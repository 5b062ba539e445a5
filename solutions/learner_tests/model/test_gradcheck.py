"""Laboratorio 04 · test_gradcheck.py: tus tests con ``mt.gradcheck``.

``mt.gradcheck(fn, entradas)`` compara el gradiente de backward con diferencias centrales, con
un gradiente de arriba aleatorio. Úsalo en tensores pequeños (unos 100 elementos) sobre una
composición de operaciones con broadcasting (formas que se amplían en un eje inicial y en uno
interior), lejos de los puntos donde una función no es derivable.
"""

import numpy as np
import pytest

import minitorch as mt

### BEGIN SOLUTION
RNG = np.random.default_rng(8)


@pytest.mark.parametrize("shapes", [((3,), (4, 3)), ((4, 1), (4, 3)), ((2, 1, 3), (4, 1))],
                         ids=str)
def test_composition_gradcheck(shapes):
    a, b = (RNG.uniform(0.5, 2.0, size=s) for s in shapes)
    mt.gradcheck(lambda x, y: (x * y - x / y).tanh() + (x - y).sigmoid(), [a, b])
### END SOLUTION
