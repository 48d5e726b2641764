/* dl-fast.c: the Python layer's arithmetic operators in C.
 *
 * `a + b` through the typelib costs the GI call's argument and error
 * marshalling on top of the op; for the small tensors of a training loop's
 * bookkeeping that is a large part of the time. This module gives the
 * Python Tensor class method descriptors for + - * / @ and unary minus that
 * call libdl directly and wrap the result with PyGObject's own wrapper, so
 * that the result is the same Dl.Tensor object the typelib would give.
 *
 * Only the common cases are handled here: a Tensor with a Tensor, or with a
 * Python int or a float (a float next to an integer tensor keeps Python's
 * path, where its integral value matters). Anything else, and any error,
 * goes to the Python implementation the descriptor replaced, which gives
 * PyTorch's exception classes and messages: the ops have no side effects,
 * so calling them again after a failure is safe.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pygobject.h>

#include <dl.h>

/* Above this many elements an op releases the GIL while it runs. */
#define RELEASE_GIL_NUMEL 32768

typedef DlTensor *(*TensorFunc) (DlTensor *a, DlTensor *b, GError **error);
typedef DlTensor *(*ScalarFunc) (DlTensor *a, gdouble b, GError **error);

enum
{
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_MATMUL,
  OP_NEG,
  N_OPS
};

static const struct
{
  TensorFunc tensor_fn;
  ScalarFunc scalar_fn;
} ops[N_OPS] = {
  [OP_ADD] = { dl_tensor_add, dl_tensor_add_scalar },
  [OP_SUB] = { dl_tensor_sub, dl_tensor_sub_scalar },
  [OP_MUL] = { dl_tensor_mul, dl_tensor_mul_scalar },
  [OP_DIV] = { dl_tensor_div, dl_tensor_div_scalar },
  [OP_MATMUL] = { dl_tensor_matmul, NULL },
  [OP_NEG] = { NULL, NULL },
};

/* The Python implementations the descriptors replace, and the Tensor
 * class. */
static PyObject *fallbacks[N_OPS];
static PyTypeObject *tensor_type;

static PyObject *
call_fallback (int op, PyObject *self, PyObject *other)
{
  PyObject *args[2] = { self, other };

  return PyObject_Vectorcall (fallbacks[op], args, other ? 2 : 1, NULL);
}

static PyObject *
wrap (DlTensor *result)
{
  /* the wrapper takes our reference over */
  PyObject *obj = pygobject_new_full (G_OBJECT (result), TRUE, NULL);

  if (obj == NULL)
    g_object_unref (result);
  return obj;
}

static gboolean
is_big (DlTensor *t)
{
  return dl_tensor_numel (t) >= RELEASE_GIL_NUMEL;
}

static PyObject *
binary (int op, PyObject *self, PyObject *other)
{
  DlTensor *a = DL_TENSOR (pygobject_get (self));
  DlTensor *result;
  GError *error = NULL;

  if (PyObject_TypeCheck (other, tensor_type))
    {
      DlTensor *b = DL_TENSOR (pygobject_get (other));

      if (is_big (a) || is_big (b))
        {
          Py_BEGIN_ALLOW_THREADS result = ops[op].tensor_fn (a, b, &error);
          Py_END_ALLOW_THREADS
        }
      else
        result = ops[op].tensor_fn (a, b, &error);
    }
  else if (ops[op].scalar_fn
           && (PyLong_CheckExact (other)
               || (PyFloat_CheckExact (other)
                   && dl_dtype_is_floating_point (dl_tensor_get_dtype (a)))))
    {
      gdouble v;

      if (PyFloat_CheckExact (other))
        v = PyFloat_AS_DOUBLE (other);
      else
        {
          /* beyond int64, Python's path raises PyTorch's overflow error */
          int overflow;
          long long i = PyLong_AsLongLongAndOverflow (other, &overflow);

          if (overflow || (i == -1 && PyErr_Occurred ()))
            {
              PyErr_Clear ();
              return call_fallback (op, self, other);
            }
          v = (gdouble)i;
        }
      if (is_big (a))
        {
          Py_BEGIN_ALLOW_THREADS result = ops[op].scalar_fn (a, v, &error);
          Py_END_ALLOW_THREADS
        }
      else
        result = ops[op].scalar_fn (a, v, &error);
    }
  else
    return call_fallback (op, self, other);

  if (result == NULL)
    {
      g_error_free (error);
      return call_fallback (op, self, other);
    }
  return wrap (result);
}

static PyObject *
fast_binary (PyObject *self, PyObject *const *args, Py_ssize_t nargs, int op)
{
  if (nargs != 1)
    return call_fallback (op, self, nargs > 0 ? args[0] : NULL);
  return binary (op, self, args[0]);
}

#define DEFINE_BINARY(fname, OP)                                                                   \
  static PyObject *fname (PyObject *self, PyObject *const *args, Py_ssize_t nargs)                 \
  {                                                                                                \
    return fast_binary (self, args, nargs, OP);                                                    \
  }

DEFINE_BINARY (fast_add, OP_ADD)
DEFINE_BINARY (fast_sub, OP_SUB)
DEFINE_BINARY (fast_mul, OP_MUL)
DEFINE_BINARY (fast_div, OP_DIV)
DEFINE_BINARY (fast_matmul, OP_MATMUL)

static PyObject *
fast_neg (PyObject *self, PyObject *unused)
{
  DlTensor *result;
  GError *error = NULL;

  result = dl_tensor_neg (DL_TENSOR (pygobject_get (self)), &error);
  if (result == NULL)
    {
      g_error_free (error);
      return call_fallback (OP_NEG, self, NULL);
    }
  return wrap (result);
}

static PyMethodDef tensor_methods[N_OPS] = {
  [OP_ADD] = { "__add__", (PyCFunction)(void (*) (void))fast_add, METH_FASTCALL, NULL },
  [OP_SUB] = { "__sub__", (PyCFunction)(void (*) (void))fast_sub, METH_FASTCALL, NULL },
  [OP_MUL] = { "__mul__", (PyCFunction)(void (*) (void))fast_mul, METH_FASTCALL, NULL },
  [OP_DIV] = { "__truediv__", (PyCFunction)(void (*) (void))fast_div, METH_FASTCALL, NULL },
  [OP_MATMUL] = { "__matmul__", (PyCFunction)(void (*) (void))fast_matmul, METH_FASTCALL, NULL },
  [OP_NEG] = { "__neg__", fast_neg, METH_NOARGS, NULL },
};

/* install(cls): replaces cls's operators by the C ones, keeping the
 * Python ones as fallbacks. cls must be the Dl.Tensor override class. */
static PyObject *
fast_install (PyObject *module, PyObject *cls)
{
  if (!PyType_Check (cls)
      || !PyType_IsSubtype ((PyTypeObject *)cls, pygobject_lookup_class (DL_TYPE_TENSOR)))
    {
      PyErr_SetString (PyExc_TypeError, "install() expects the Dl.Tensor class");
      return NULL;
    }
  if (tensor_type != NULL)
    {
      PyErr_SetString (PyExc_RuntimeError, "install() was already called");
      return NULL;
    }
  for (int i = 0; i < N_OPS; i++)
    {
      const char *name = tensor_methods[i].ml_name;
      PyObject *descr;

      if (!(fallbacks[i] = PyObject_GetAttrString (cls, name)))
        return NULL;
      if (!(descr = PyDescr_NewMethod ((PyTypeObject *)cls, &tensor_methods[i])))
        return NULL;
      if (PyObject_SetAttrString (cls, name, descr) < 0)
        {
          Py_DECREF (descr);
          return NULL;
        }
      Py_DECREF (descr);
    }
  Py_INCREF (cls);
  tensor_type = (PyTypeObject *)cls;
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
  { "install", fast_install, METH_O,
    "install(cls): give the Tensor class the C implementations of its operators" },
  { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
  PyModuleDef_HEAD_INIT, "_dl_fast", "libdl's Tensor operators in C", -1, module_methods,
};

PyMODINIT_FUNC
PyInit__dl_fast (void)
{
  if (pygobject_init (3, 0, 0) == NULL)
    return NULL;
  return PyModule_Create (&module_def);
}
