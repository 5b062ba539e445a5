# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).
# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de
# error atrapan.
"""Laboratorio 00 · test_tensor_skeleton.py: tus tests del esqueleto del Tensor y de backward.

Aún no hay operaciones: construye los grafos a mano con
``mt.Tensor._make(datos, padres, "nombre", backward)``, donde ``backward(g)`` devuelve un
gradiente por padre. Este fichero debe comprobar, cada cosa en su test:

- ``grad`` vale ``None`` hasta que un backward llega al tensor, y ``backward()`` sobre una hoja
  no rompe nada;
- un nodo alcanzado por dos caminos (un diamante a -> b, c -> d, o un nodo usado dos veces como
  padre) recibe la SUMA de los gradientes de ambos caminos, y un nodo INTERMEDIO compartido
  pasa su gradiente hacia atrás una sola vez;
- dos ``backward()`` sobre grafos nuevos, sin ``zero_grad()``, acumulan en ``.grad`` de la hoja;
- un segundo ``backward()`` sobre el mismo grafo falla (``mt.BackwardError``) salvo con
  ``retain_graph=True``;
- un operando constante (``requires_grad=False``) conserva ``.grad`` a ``None``;
- una cadena larga (10 000 nodos o más) no desborda la pila de Python.

Compara con valores que calculas a mano, no con los que devuelve tu propio código.
"""

import numpy as np
import pytest

import minitorch as mt

# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba
