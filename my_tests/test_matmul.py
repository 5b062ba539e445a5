# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 03 · test_matmul.py: tus tests de matmul (``@``).

Compara con torch (float64, 1e-7) el forward y los gradientes de AMBOS operandos, con un
gradiente de arriba aleatorio, en matrices NO cuadradas ((4, 5) @ (5, 3)), con ejes de lote
((2, 4, 5) @ (5, 3) y (2, 4, 5) @ (2, 5, 3)) y con operandos 1-D. Un ``mt.gradcheck`` en
tensores pequeños (unos 100 elementos).
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
