# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 03 · test_softmax.py: tus tests de softmax y log_softmax.

Compara con torch (float64, 1e-7) el forward y el gradiente, con un gradiente de arriba
aleatorio (con ``.sum()`` el gradiente de softmax es cero y no prueba nada), a lo largo de
axis=-1 y axis=0. Con logits grandes (±1e4) la salida debe ser finita. Un ``mt.gradcheck``.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
