# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 04 · test_gradcheck.py: tus tests con ``mt.gradcheck``.

``mt.gradcheck(fn, entradas)`` compara el gradiente de backward con diferencias centrales, con
un gradiente de arriba aleatorio. Úsalo en tensores pequeños (unos 100 elementos) sobre una
composición de operaciones con broadcasting (formas que se amplían en un eje inicial y en uno
interior), lejos de los puntos donde una función no es derivable.
"""

import numpy as np
import pytest

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
