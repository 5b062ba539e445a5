# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 03 · test_grammar_gradient.py: un test de extremo a extremo con la rejilla
gramatical.

Persona en one-hot (N, 3) @ pesos (3, 5) -> logits de tiempo verbal (N, 5) -> cross_entropy con
los tiempos objetivo (0..4): la pérdida y los gradientes de los pesos deben ser los de torch
(float64, 1e-7). Usa un lote de varias filas y pesos aleatorios con semilla.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
