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

### BEGIN SOLUTION
T = mt.Tensor


def scale(x, k):
    """A hand-built op: k·x."""
    return T._make(k * x.data, (x,), "scale", lambda g: (k * g,))


def plus(a, b):
    return T._make(a.data + b.data, (a, b), "plus", lambda g: (g, g))


def test_grad_is_none_until_backward_and_a_leaf_backward_is_harmless():
    x = T(np.array(3.0), requires_grad=True)
    assert x.grad is None
    x.backward()
    assert np.allclose(x.grad, 1.0)


def test_a_diamond_adds_both_paths():
    x = T(np.array([1.0, -2.0]), requires_grad=True)
    d = plus(scale(x, 2.0), scale(x, 3.0))
    d.backward(np.array([1.0, 10.0]))
    assert np.allclose(x.grad, [5.0, 50.0])


def test_a_shared_intermediate_node_passes_its_gradient_back_once():
    x = T(np.array([1.0, 2.0]), requires_grad=True)
    h = scale(x, 3.0)  # reached along two paths
    d = plus(scale(h, 2.0), scale(h, 5.0))
    d.backward(np.array([1.0, -1.0]))
    assert np.allclose(x.grad, [21.0, -21.0])


def test_a_node_used_twice_as_a_parent():
    x = T(np.array([2.0]), requires_grad=True)
    y = plus(x, x)
    y.backward(np.array([3.0]))
    assert np.allclose(x.grad, [6.0])


def test_backward_twice_accumulates_in_the_leaf():
    x = T(np.array([1.0, 2.0]), requires_grad=True)
    scale(x, 2.0).backward(np.array([1.0, 1.0]))
    scale(x, 5.0).backward(np.array([1.0, 1.0]))
    assert np.allclose(x.grad, [7.0, 7.0])


def test_the_graph_is_freed_unless_retained():
    x = T(np.array([1.0]), requires_grad=True)
    y = scale(scale(x, 2.0), 3.0)
    y.backward(np.array([1.0]), retain_graph=True)
    y.backward(np.array([1.0]))
    assert np.allclose(x.grad, [12.0])
    with pytest.raises(mt.BackwardError):
        y.backward(np.array([1.0]))


def test_a_constant_operand_gets_no_grad():
    x = T(np.array([1.0, 2.0]), requires_grad=True)
    c = T(np.array([3.0, 4.0]))
    y = T._make(x.data * c.data, (x, c), "times", lambda g: (g * c.data, g * x.data))
    y.backward(np.array([1.0, 1.0]))
    assert c.grad is None
    assert np.allclose(x.grad, [3.0, 4.0])


def test_a_long_chain():
    x = T(np.array(1.0), requires_grad=True)
    y = x
    for _ in range(10_000):
        y = scale(y, 1.0)
    y.backward()
    assert np.allclose(x.grad, 1.0)
### END SOLUTION
