# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 02 · test_reductions.py: tus tests de sum, mean y max.

Compara con torch (float64, 1e-7) el forward y el gradiente, con un gradiente de arriba
aleatorio, reduciendo sobre TODOS los ejes y sobre UNO (axis=0, axis=-1, una tupla de ejes),
con ``keepdims=False`` y ``keepdims=True``. Para max, un caso con máximos empatados (torch
reparte el gradiente a partes iguales entre ellos). Y un ``mt.gradcheck`` por reducción.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
