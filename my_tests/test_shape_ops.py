# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 02 · test_shape_ops.py: tus tests de reshape, transpose, broadcast_to, x[idx],
cat y stack.

Cada operación de forma invierte su transformación en el backward: comprueba la ida y vuelta
(el gradiente vuelve a la forma de la entrada, ``grad.shape == data.shape``) con un gradiente
de arriba aleatorio y compara con torch. Casos que separan errores: reshape entre formas
distintas ((3, 4) -> (2, 6)), una permutación que no es su propia inversa ((1, 2, 0)), índices
repetidos (``x[[0, 0, 2]]``: sus gradientes se suman), cat de piezas de tamaños distintos.
Y un ``mt.gradcheck`` por operación.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
