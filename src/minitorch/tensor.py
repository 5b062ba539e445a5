"""minitorch.tensor: diferenciación automática en modo inverso sobre arrays de NumPy. TU código.

Este es el fichero que completas en la Fase 08. Cada ``raise NotImplementedError`` nombra el
cuaderno del laboratorio que lo pide; sustitúyelo por tu código. Ejecuta ``make check`` para ver
tu progreso. (Generado a partir de la referencia por ``make stubs``; los docstrings de abajo son
tu especificación.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch.base import TensorBase
from minitorch.errors import BackwardError, GradShapeError, shape_errors
from minitorch.errors import grad_shape_message as _grad_shape_message
from minitorch.support import Axis, is_grad_enabled, no_grad
from minitorch.support import accumulate as _accumulate
from minitorch.support import check_unchanged as _check_unchanged
from minitorch.support import class_targets as _class_targets
from minitorch.support import erf as _erf
from minitorch.support import permutation as _permutation
from minitorch.support import reduced_axes as _axes
from minitorch.support import select as _select
from minitorch.support import sigmoid as _sigmoid
from minitorch.support import sizes as _sizes

__all__ = [
    "Tensor",
    "cat",
    "cross_entropy",
    "is_grad_enabled",
    "no_grad",
    "stack",
    "unbroadcast",
]


class Tensor(TensorBase):
    """Un array de NumPy que recuerda cómo se calculó, para que los gradientes vuelvan hasta él.

    ``Tensor(data, requires_grad=False)`` copia ``data`` en un array float64. Las hojas que
    necesitan gradiente se crean con ``requires_grad=True``; la salida de una operación pide
    gradiente cuando alguna de sus entradas lo pide (y el modo de gradiente está activo). El
    constructor, ``_make``, ``shape``, ``item()``, ``detach()``, los operadores (``a + b`` llama a
    tu ``add``) y el resto vienen de ``minitorch.base.TensorBase``, que da el curso; las funciones
    auxiliares importadas arriba (``_axes``, ``_sigmoid``, ``_accumulate``, ...), de
    ``minitorch.support``.

    Una operación calcula los datos de su salida y su clausura ``_backward(g)`` (un gradiente por
    padre, con la forma de la salida), y devuelve ``Tensor._make(data, parents, op_name, _backward)``.
    """

    __slots__ = ()  # the fields are declared in minitorch.node.Node

    # ================================================================== the engine
    # @lab 00-tensor-skeleton

    def _topological_order(self) -> list[Tensor]:
        """Cada nodo que necesita gradiente y lleva hasta ``self``, padres antes que hijos.

        Búsqueda en profundidad iterativa con una pila explícita: una recursiva desborda la pila
        de llamadas de Python (límite ~1000) con una cadena de 100 000 operaciones.
        """
        raise NotImplementedError("Tensor._topological_order: aún sin escribir / not written yet (notebooks/00-tensor-skeleton.ipynb)")

    def backward(self, grad: Any = None, retain_graph: bool = False) -> None:
        """Rellena el ``.grad`` de cada hoja que lleva hasta aquí con d(self)/d(hoja).

        ``grad`` es el gradiente de arriba, con la forma de ``self``; solo puede omitirse cuando
        ``self`` tiene un único elemento (la semilla es entonces 1). Los gradientes de las hojas
        se acumulan entre llamadas (llama a ``zero_grad``); el ``.grad`` de un nodo intermedio
        guarda el valor de la última pasada. Después el grafo se libera, como en PyTorch, salvo
        con ``retain_graph=True``; un segundo ``backward()`` sobre un grafo liberado lanza
        entonces ``BackwardError`` (teoría 01): detectarlo también es tuyo, y la comprobación
        ``retain_graph`` del lab 00 lo prueba.

        Suma cada gradiente a su nodo con ``_accumulate(node, g, grad_output)``, que da el curso,
        nunca a mano: ``g`` es el gradiente para ``node``, y ``grad_output`` el gradiente de
        arriba que recibió el ``_backward`` que devolvió ``g`` (para la propia salida, su
        semilla). La función compara los dos para saber si ``g`` es un array que puede guardar.
        Un gradiente cuya forma difiere de la de su padre pasa por ``unbroadcast``, que pide el
        lab 01 (sección siguiente): los grafos del lab 00 nunca usan broadcasting, así que hasta
        entonces la llamada no se alcanza, y sigue siendo el único sitio donde ocurre el
        broadcasting inverso.

        Dos comprobaciones también son tuyas (teoría 01): antes de que fluya ningún gradiente,
        pasa los nodos a ``_check_unchanged``, que da el curso (datos cambiados in situ desde el
        forward: un ``BackwardError``); y un gradiente que, incluso después de ``unbroadcast``,
        no tiene la forma de su padre lanza ``GradShapeError`` con ``_grad_shape_message``, que
        da el curso (la op, el índice del padre, las dos formas).
        """
        seed = self._seed(grad)  # provided: requires_grad, and grad's shape
        raise NotImplementedError("Tensor.backward: aún sin escribir / not written yet (notebooks/00-tensor-skeleton.ipynb)")

    # ================================================================== elementwise ops
    # @lab 01-elementwise-ops

    @staticmethod
    def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """Suma ``grad`` hasta la forma ``shape``: lo inverso de expandir ``shape`` a ``grad.shape``.

        Alineados por la derecha, se suman (y desaparecen) los ejes que ``grad`` tiene de más por
        la izquierda, y también los ejes donde ``shape`` tiene 1 y ``grad`` no. (4, 3) -> (3,):
        suma sobre el eje 0. Devuelve ``grad`` sin cambios cuando no aplica ninguna regla; quien
        llama comprueba la forma final.
        """
        raise NotImplementedError("Tensor.unbroadcast: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    @shape_errors
    def add(self, other: Any) -> Tensor:
        """a + b, elemento a elemento con broadcasting. (...), (...) -> forma expandida."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.add: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    @shape_errors
    def sub(self, other: Any) -> Tensor:
        """a - b, elemento a elemento con broadcasting. (...), (...) -> forma expandida."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.sub: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    @shape_errors
    def mul(self, other: Any) -> Tensor:
        """a * b, elemento a elemento con broadcasting. (...), (...) -> forma expandida."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.mul: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    @shape_errors
    def div(self, other: Any) -> Tensor:
        """a / b, elemento a elemento con broadcasting. (...), (...) -> forma expandida."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.div: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def neg(self) -> Tensor:
        """-a, elemento a elemento. (...) -> (...)."""
        raise NotImplementedError("Tensor.neg: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    @shape_errors
    def pow(self, other: Any) -> Tensor:
        """a ** b con broadcasting; el gradiente del exponente necesita a > 0 (teoría 02, pow con base 0)."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.pow: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def exp(self) -> Tensor:
        """e^a, elemento a elemento. (...) -> (...)."""
        raise NotImplementedError("Tensor.exp: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def log(self) -> Tensor:
        """ln a, elemento a elemento (a > 0). (...) -> (...)."""
        raise NotImplementedError("Tensor.log: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def sqrt(self) -> Tensor:
        """√a, elemento a elemento (a > 0). (...) -> (...)."""
        raise NotImplementedError("Tensor.sqrt: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def relu(self) -> Tensor:
        """max(a, 0), elemento a elemento; en el punto anguloso a = 0 el gradiente es 0, como en torch. (...) -> (...)."""
        raise NotImplementedError("Tensor.relu: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def gelu(self, approximate: str = "none") -> Tensor:
        """a·Φ(a), con Φ la función de distribución de la normal estándar; ``approximate='tanh'`` usa la fórmula con tanh de torch.

        tanh: 0.5·a·(1 + tanh(u)), u = √(2/π)·(a + 0.044715·a³). Derivadas: teoría 02, gelu.
        """
        if approximate not in ("none", "tanh"):
            raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
        raise NotImplementedError("Tensor.gelu: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def tanh(self) -> Tensor:
        """tanh a, elemento a elemento. (...) -> (...)."""
        raise NotImplementedError("Tensor.tanh: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def sigmoid(self) -> Tensor:
        """σ(a) = 1/(1+e^-a), elemento a elemento (``_sigmoid`` la calcula sin desbordar). (...) -> (...)."""
        raise NotImplementedError("Tensor.sigmoid: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    # ================================================================== reductions and shape ops
    # @lab 02-reductions-and-shapes

    @shape_errors
    def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """Σ sobre ``axis`` (entero, tupla o None = todos). (...) -> forma reducida."""
        raise NotImplementedError("Tensor.sum: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """Σ sobre ``axis`` / número de elementos sumados. (...) -> forma reducida."""
        raise NotImplementedError("Tensor.mean: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """máximo sobre ``axis``; el gradiente se reparte a partes iguales entre los máximos empatados (torch.amax)."""
        raise NotImplementedError("Tensor.max: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """Los mismos elementos con otra forma (``reshape(3, 5)`` o ``reshape((3, 5))``)."""
        shape = _sizes(shape, "reshape: sizes")
        raise NotImplementedError("Tensor.reshape: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def transpose(self, *axes: int | Sequence[int]) -> Tensor:
        """Permuta los ejes (sin argumentos: los invierte). (d0, d1, ...) -> forma permutada.

        ``perm``, que da el curso: todos los ejes, en positivo, en el orden de la salida
        (sin argumentos: invertidos)."""
        perm = _permutation(_sizes(axes, "transpose: axes"), self.ndim)  # (-1, 0) -> (1, 0)
        raise NotImplementedError("Tensor.transpose: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def broadcast_to(self, shape: Sequence[int]) -> Tensor:
        """Expande a ``shape`` por broadcasting; el backward es cosa de unbroadcast."""
        raise NotImplementedError("Tensor.broadcast_to: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    def getitem(self, index: Any) -> Tensor:
        """``a[index]``: slices, enteros, arrays de enteros (los índices repetidos acumulan)."""
        index, selected = _select(self.data, index)  # provided: the index copied, or an IndexError
        raise NotImplementedError("Tensor.getitem: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    @staticmethod
    @shape_errors
    def cat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
        """Junta tensores a lo largo de un eje ``axis`` existente: (2,5), (3,5) -> (5,5) con axis=0."""
        tensors = tuple(Tensor._as_tensor(t) for t in tensors)
        raise NotImplementedError("Tensor.cat: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    @staticmethod
    @shape_errors
    def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
        """Junta tensores de la misma forma a lo largo de un eje ``axis`` NUEVO: 3 × (4,5) -> (3,4,5) con axis=0."""
        tensors = tuple(Tensor._as_tensor(t) for t in tensors)
        raise NotImplementedError("Tensor.stack: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    # ================================================================== matmul and softmax
    # @lab 03-matmul-softmax-ce

    @shape_errors
    def matmul(self, other: Any) -> Tensor:
        """a @ b con la semántica de NumPy: (..., N, K) @ (..., K, M) -> (..., N, M), 1-D incluido."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.matmul: aún sin escribir / not written yet (notebooks/03-matmul-softmax-ce.ipynb)")

    @shape_errors
    def softmax(self, axis: int = -1) -> Tensor:
        """e^a / Σ e^a a lo largo de ``axis`` (primero se resta el máximo). (...) -> (...)."""
        raise NotImplementedError("Tensor.softmax: aún sin escribir / not written yet (notebooks/03-matmul-softmax-ce.ipynb)")

    @shape_errors
    def log_softmax(self, axis: int = -1) -> Tensor:
        """a - log Σ e^a a lo largo de ``axis``, con log-sum-exp. (...) -> (...)."""
        raise NotImplementedError("Tensor.log_softmax: aún sin escribir / not written yet (notebooks/03-matmul-softmax-ce.ipynb)")

    @staticmethod
    def cross_entropy(logits: Tensor, targets: Any, reduction: str = "mean") -> Tensor:
        """-log softmax(logits)[i, targets[i]] para cada fila i, reducida como en torch: (N, C),
        (N,) enteros -> () con reduction='mean' (la opción por defecto: la media del lote) o 'sum',
        (N,) con 'none' (la pérdida de cada fila).

        Fusionada con log-sum-exp, así que logits de ±1e4 siguen finitos; un solo nodo, cuyo
        gradiente derivas en la teoría 03, sección 4.4 (la reducción solo cambia cómo llega g a
        cada fila).
        """
        logits = Tensor._as_tensor(logits)
        targets = _class_targets(targets, logits.shape)
        if reduction not in ("mean", "sum", "none"):
            raise ValueError("cross_entropy: reduction must be 'mean', 'sum' or 'none', got "
                             f"{reduction!r}")
        raise NotImplementedError("Tensor.cross_entropy: aún sin escribir / not written yet (notebooks/03-matmul-softmax-ce.ipynb)")

    # ================================================================== extension
    # @lab 06-extension-silu

    def silu(self) -> Tensor:
        """a·σ(a) (también llamada swish); su derivada la derivas tú (lab 06). (...) -> (...)."""
        raise NotImplementedError("Tensor.silu: aún sin escribir / not written yet (notebooks/06-extension-silu.ipynb)")


# ---------------------------------------------------------------------- provided
# The ops written as static methods are also module-level functions (``mt.cat(...)``).
unbroadcast = Tensor.unbroadcast
cat = Tensor.cat
stack = Tensor.stack
cross_entropy = Tensor.cross_entropy
