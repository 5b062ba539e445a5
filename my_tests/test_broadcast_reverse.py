# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 01 · test_broadcast_reverse.py: tus tests del broadcasting inverso.

Para las operaciones binarias (add, sub, mul, div) y los pares de formas que más se usan,
comprueba que el gradiente de cada entrada tiene la forma de esa entrada
(``grad.shape == data.shape``) y el valor de torch (float64, 1e-7), con un gradiente de arriba
aleatorio. Los pares deben ampliar la forma en un eje INICIAL ((3,) con (4, 3); (5,) con
(2, 3, 5)) y en un eje INTERIOR de tamaño 1 ((4, 1) con (4, 3); (2, 1, 5) con (2, 3, 5)),
y en los dos a la vez ((1, 3) con (4, 1)). Prueba también ``mt.unbroadcast`` directamente.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
