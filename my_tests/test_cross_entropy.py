# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 03 · test_cross_entropy.py: tus tests de ``mt.cross_entropy``.

Compara con ``torch.nn.functional.cross_entropy`` (float64, 1e-7) la pérdida y el gradiente de
los logits para un lote de VARIAS filas (N > 1: la media divide el gradiente entre N), con
clases objetivo distintas, en las tres reducciones: ``reduction='mean'`` (la de por defecto),
``'sum'`` y ``'none'`` (una pérdida por fila: su backward con un gradiente de arriba no
uniforme). Logits grandes (±1e4): la pérdida y el gradiente son finitos. Un ``mt.gradcheck``.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
