# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 01 · test_elementwise.py: tus tests de las operaciones elemento a elemento.

Para cada operación (add, sub, mul, div, neg, exp, log, sqrt, relu, gelu, tanh, sigmoid)
escribe un test que compare con torch en float64 (tolerancia 1e-7) el forward y el gradiente de
CADA entrada, con un gradiente de arriba (upstream) aleatorio ``g``: ``y.backward(g)``, no
``y.sum().backward()``. Y otro que pase ``mt.gradcheck``. Añade los casos que separan un
error de otro: relu exactamente en 0 (torch da gradiente 0), entradas negativas y positivas,
dominios válidos (log y sqrt con entradas positivas). Comprueba ``grad.shape == data.shape``
tras cada backward.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
