# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 04 · test_properties.py: tus tests de propiedades con Hypothesis.

Al menos una propiedad sobre formas aleatorias que se emiten por broadcasting, generadas con
``hypothesis.extra.numpy.mutually_broadcastable_shapes``: para add, sub, mul y div, tras
``backward`` con un gradiente de arriba aleatorio, cada gradiente tiene la forma de su entrada
y el valor de torch. Fija las semillas: el test debe dar lo mismo cada vez.
"""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
