/* dl-fast.c: the C paths of the Python layer's hot Tensor methods.
 *
 * A Tensor method called from Python pays, on top of the op, for the GI
 * call's argument and error marshalling and, where the package wraps it,
 * for a Python frame and its argument parsing; for the small tensors of a
 * training loop's bookkeeping that is most of the time. This module gives
 * the Tensor class (dl/_tensor.py) C implementations of its hottest
 * methods, operators and properties. Each handles the common call shape
 * (tensors, Python ints and floats, dims as ints) by calling libdl directly
 * and wrapping the result with PyGObject's own wrapper, so that the result
 * is the same Dl.Tensor the typelib would give; every other call, and
 * every call that fails, goes to the Python method (or property) it
 * replaced, which gives PyTorch's results, exception classes and messages.
 * Calling again after a failure is safe: libdl checks its arguments before
 * it writes anything, so a failed call has had no effect.
 *
 * One table, `entries`, names every method and property with its handler
 * (one per argument shape, below it) and the libdl functions it calls.
 * A handler returns the result; or NULL with a Python exception set, which
 * propagates; or NULL without one (FALLBACK), which calls the Python method.
 * Methods are instances of this module's descriptor type (a method
 * descriptor that knows its table entry); properties are getset
 * descriptors whose closure is their entry.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pygobject.h>

#include <dl.h>
#include <math.h>
#include <string.h>

/* Above this many elements an op releases the GIL while it runs. */
#define RELEASE_GIL_NUMEL 32768
/* Longer shapes and dim lists go to Python. */
#define MAX_DIMS 64
/* The most parameters a handled method has. */
#define MAX_PARAMS 3

#define FALLBACK NULL

typedef DlTensor *(*UnaryFn) (DlTensor *self, GError **error);
typedef DlTensor *(*BinaryFn) (DlTensor *self, DlTensor *other, GError **error);
typedef DlTensor *(*ScalarFn) (DlTensor *self, gdouble other, GError **error);
typedef DlTensor *(*DimFn) (DlTensor *self, gint64 dim, GError **error);
typedef DlTensor *(*Dim2Fn) (DlTensor *self, gint64 dim0, gint64 dim1, GError **error);
typedef DlTensor *(*DimsFn) (DlTensor *self, const gint64 *dims, gsize n, GError **error);
typedef DlTensor *(*ShapeFn) (DlTensor *self, const gint64 *shape, gsize n, GError **error);
typedef DlTensor *(*DimKeepFn) (DlTensor *self, gint64 dim, gboolean keepdim, GError **error);
typedef DlTensor *(
    *DimsKeepFn) (DlTensor *self, const gint64 *dims, gsize n, gboolean keepdim, GError **error);
typedef DlTensor *(*DimKeepIndicesFn) (DlTensor *self,
                                       gint64 dim,
                                       gboolean keepdim,
                                       DlTensor **indices,
                                       GError **error);

/* The libdl function an entry calls; which member depends on its handler. */
typedef union
{
  UnaryFn unary;
  BinaryFn binary;
  ScalarFn scalar;
  DimFn dim;
  Dim2Fn dim2;
  DimsFn dims;
  ShapeFn shape;
  DimKeepFn dim_keep;
  DimsKeepFn dims_keep;
  DimKeepIndicesFn dim_keep_indices;
  DlTensor *(*bounds) (DlTensor *, DlTensor *, DlTensor *, GError **);
  DlTensor *(*bound_numbers) (DlTensor *, gdouble, gdouble, GError **);
} Fn;

/* A call's arguments after self, as vectorcall passes them. */
typedef struct
{
  PyObject *const *args;
  Py_ssize_t nargs;
  PyObject *kwnames;
} Call;

typedef struct Entry Entry;
typedef PyObject *(*Handler) (const Entry *e, PyObject *self, DlTensor *t, const Call *c);
typedef PyObject *(*Getter) (PyObject *self, DlTensor *t);
/* 1: done; 0: FALLBACK; -1: a Python exception is set. */
typedef int (*Setter) (PyObject *self, DlTensor *t, PyObject *value);

struct Entry
{
  const char *name;
  Handler handler; /* a method; NULL for a property */
  Fn fn;           /* the op for the common case */
  Fn fn2;          /* the scalar form of a binary op, the all-dims form of a reduction */
  /* parameter names, in order (keywords are matched against them) */
  const char *params[MAX_PARAMS + 1];
  gint defaults[2]; /* dim2: the dims when not given, if n_required is 0 */
  gint n_required;
  Getter get; /* a property, or a method without arguments that returns it */
  Setter set;
};

/* The Tensor class and the Python objects handlers return. */
static PyTypeObject *tensor_type;
static PyTypeObject *size_type; /* torch.Size */
static PyObject *cpu_device;
static PyObject *dtype_objects[16]; /* by DlDType */

/* The torch.return_types class of an entry's (values, indices) results
 * (return_types.max for x.max(0)), set by install() */
static PyTypeObject *result_type_of (const Entry *e);

/* ---- argument helpers ------------------------------------------------- */

static DlTensor *
tensor_of (PyObject *o)
{
  if (!PyObject_TypeCheck (o, tensor_type))
    return NULL;
  return (DlTensor *)pygobject_get (o);
}

static gboolean
is_big (DlTensor *t)
{
  return dl_tensor_numel (t) >= RELEASE_GIL_NUMEL;
}

/* result = call, without the GIL when big. */
#define RUN(big, result, call)                                                                     \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (big)                                                                                       \
      {                                                                                            \
        Py_BEGIN_ALLOW_THREADS (result) = (call);                                                  \
        Py_END_ALLOW_THREADS                                                                       \
      }                                                                                            \
    else                                                                                           \
      (result) = (call);                                                                           \
  }                                                                                                \
  G_STMT_END

/* Fills out[] with the call's arguments by position or keyword, NULL where
 * not given; FALSE when the call has arguments e does not name, or names
 * one twice. */
static gboolean
parse (const Entry *e, const Call *c, PyObject **out)
{
  int n = 0;

  while (n < MAX_PARAMS && e->params[n])
    n++;
  if (c->nargs > n)
    return FALSE;
  for (int i = 0; i < MAX_PARAMS; i++)
    out[i] = i < c->nargs ? c->args[i] : NULL;
  if (c->kwnames)
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE (c->kwnames); k++)
      {
        PyObject *key = PyTuple_GET_ITEM (c->kwnames, k);
        int i = 0;

        while (i < n && PyUnicode_CompareWithASCIIString (key, e->params[i]) != 0)
          i++;
        if (i == n || out[i])
          return FALSE;
        out[i] = c->args[c->nargs + k];
      }
  return TRUE;
}

static gboolean
is_none (PyObject *o)
{
  return o == NULL || o == Py_None;
}

/* alpha=1, as the Python methods test it, when it is an int or a float. */
static gboolean
is_one (PyObject *o)
{
  if (o == NULL)
    return TRUE;
  if (PyLong_CheckExact (o))
    {
      int overflow;

      return PyLong_AsLongLongAndOverflow (o, &overflow) == 1;
    }
  return PyFloat_CheckExact (o) && PyFloat_AS_DOUBLE (o) == 1.0;
}

/* A Python int (not a bool: those go to Python) within int64. */
static gboolean
get_int64 (PyObject *o, gint64 *v)
{
  int overflow;

  if (!PyLong_CheckExact (o))
    return FALSE;
  *v = PyLong_AsLongLongAndOverflow (o, &overflow);
  return !overflow;
}

/* keepdim: absent (FALSE), True or False. */
static gboolean
get_bool (PyObject *o, gboolean *v)
{
  if (o != NULL && o != Py_True && o != Py_False)
    return FALSE;
  *v = o == Py_True;
  return TRUE;
}

/* dim: an int, or a tuple or list of ints. */
static gboolean
get_dims (PyObject *o, gint64 *dims, gsize *n)
{
  if (PyLong_CheckExact (o))
    {
      *n = 1;
      return get_int64 (o, dims);
    }
  if (!PyTuple_CheckExact (o) && !PyList_CheckExact (o))
    return FALSE;
  *n = PySequence_Fast_GET_SIZE (o);
  if (*n > MAX_DIMS)
    return FALSE;
  for (gsize i = 0; i < *n; i++)
    if (!get_int64 (PySequence_Fast_GET_ITEM (o, i), &dims[i]))
      return FALSE;
  return TRUE;
}

/* Sizes or dims given as f(2, 3), or as f((2, 3)) or f([2, 3]): the items
 * and their number, or FALSE. */
static gboolean
varargs (const Call *c, PyObject *const **items, Py_ssize_t *n)
{
  if (c->kwnames || c->nargs == 0)
    return FALSE;
  if (c->nargs == 1 && (PyTuple_CheckExact (c->args[0]) || PyList_CheckExact (c->args[0])))
    {
      *items = PySequence_Fast_ITEMS (c->args[0]);
      *n = PySequence_Fast_GET_SIZE (c->args[0]);
    }
  else
    {
      *items = c->args;
      *n = c->nargs;
    }
  return *n <= MAX_DIMS;
}

typedef enum
{
  OPERAND_OTHER,
  OPERAND_TENSOR,
  OPERAND_NUMBER,
} Operand;

/* What the Python operators do with other: a tensor goes as it is; a
 * Python int (within int64), or a float next to a floating-point tensor,
 * as a number for the op's scalar form. Anything else (a bool, a float
 * next to an integer tensor, whose integral value decides its type, numpy
 * scalars, ...) is left to Python. */
static Operand
operand (DlTensor *t, PyObject *other, DlTensor **tensor, gdouble *value)
{
  gint64 i;

  if ((*tensor = tensor_of (other)))
    return OPERAND_TENSOR;
  if (PyFloat_CheckExact (other))
    {
      if (!dl_dtype_is_floating_point (dl_tensor_get_dtype (t)))
        return OPERAND_OTHER;
      *value = PyFloat_AS_DOUBLE (other);
      return OPERAND_NUMBER;
    }
  if (!get_int64 (other, &i))
    return OPERAND_OTHER;
  *value = (gdouble)i;
  return OPERAND_NUMBER;
}

/* A number as Python's float() gives it (an int or a float), or FALSE. */
static gboolean
get_double (PyObject *o, gdouble *v)
{
  if (PyFloat_CheckExact (o))
    *v = PyFloat_AS_DOUBLE (o);
  else if (PyLong_CheckExact (o))
    {
      /* an int beyond int64 falls back to Python, which raises torch's
       * "Overflow when unpacking long" */
      int overflow;
      long long l = PyLong_AsLongLongAndOverflow (o, &overflow);

      if (overflow || (l == -1 && PyErr_Occurred ()))
        {
          PyErr_Clear ();
          return FALSE;
        }
      *v = (gdouble)l;
    }
  else
    return FALSE;
  return TRUE;
}

/* ---- wrappers ------------------------------------------------------------ */

/* A tensor's Python wrapper is PyGObject's (PyGObject, pygobject.h): the
 * GObject holds it in its qdata under PyGObject's key "PyGObject::wrapper",
 * and the wrapper holds one reference on the GObject. PyGObject makes and
 * frees wrappers for every type alike, and for a tensor, made and dropped
 * at the rate of Python operators, that costs more than a small op itself
 * (callgrind, x.max() of 100 floats: about 8500 instructions a call, 2500
 * of them in the wrapper's life): looking up the class, then at the end
 * storing "instance data" (the class again, for a wrapper made later)
 * only to free it at once, and giving up and taking back the GIL three
 * times (around the unref, and twice in freeing the instance data).
 *
 * A plain tensor wrapper (the Tensor class itself, no instance dict, no
 * toggle reference, no Python weak reference) is made and freed here
 * instead, the same way minus that work: the class is always the Tensor
 * class (libdl's tensor type is final, so no wrapper made later can need
 * another), and the GObject is unreferenced with the GIL held, as PyTorch
 * frees its tensors. Nothing a tensor's finalization runs waits for a
 * thread that wants the GIL: it frees memory and drops references;
 * destroy notifies that drop Python objects take the GIL themselves
 * (PyGILState_Ensure, re-entrant); the threads it may join (a process
 * group's lanes, when an autograd node held the group's last reference)
 * run no Python.
 * Every other wrapper goes through PyGObject's own code. install() checks
 * that PyGObject stores its wrappers as assumed before using these paths.
 */
static GQuark wrapper_key;
static destructor pygobject_tensor_dealloc; /* what tensor_type had */
static void wrapper_dealloc (PyObject *obj);

typedef enum
{
  WRAPPERS_UNDECIDED, /* the Tensor class is not yet PyGObject's class of the type */
  WRAPPERS_PYGOBJECT,
  WRAPPERS_OWN,
} Wrappers;
static Wrappers wrappers;

/* A wrapper for @t, a tensor without one whose only reference the caller
 * gives away; NULL with a Python exception set (the reference dropped). */
static PyObject *
wrapper_new (DlTensor *t)
{
  PyGObject *self = PyObject_GC_New (PyGObject, tensor_type);

  if (self == NULL)
    {
      g_object_unref (t);
      return NULL;
    }
  self->obj = G_OBJECT (t);
  self->inst_dict = NULL;
  self->weakreflist = NULL;
  self->private_flags.flags = 0;
  g_object_set_qdata_full (self->obj, wrapper_key, self, NULL);
  PyObject_GC_Track ((PyObject *)self);
  return (PyObject *)self;
}

/* What Python's dealloc of a class statement's class does for the Tensor
 * class (and for subclasses, whose own dealloc calls this one as their
 * base's): the first base class with a dealloc of its own frees the
 * instance (PyGObject's), then the instance's reference on its class
 * goes, when that base is not a heap type (it took none). */
static void
base_dealloc (PyObject *obj)
{
  PyTypeObject *type = Py_TYPE (obj), *base = type;
  gboolean decref;

  while (base->tp_dealloc == wrapper_dealloc || base->tp_dealloc == pygobject_tensor_dealloc)
    base = base->tp_base;
  decref = (type->tp_flags & Py_TPFLAGS_HEAPTYPE) && !(base->tp_flags & Py_TPFLAGS_HEAPTYPE);
  PyObject_GC_UnTrack (obj);
  base->tp_dealloc (obj);
  if (decref)
    Py_DECREF (type);
}

static void
wrapper_dealloc (PyObject *obj)
{
  PyGObject *self = (PyGObject *)obj;
  PyTypeObject *type = Py_TYPE (obj);
  GObject *gobj = self->obj;

  if (type != tensor_type || self->inst_dict || self->weakreflist || self->private_flags.flags
      || gobj == NULL)
    {
      base_dealloc (obj);
      return;
    }
  PyObject_GC_UnTrack (obj);
  self->obj = NULL;
  g_object_set_qdata_full (gobj, wrapper_key, NULL, NULL);
  g_object_unref (gobj);
  PyObject_GC_Del (obj);
  /* a heap type's instances hold a reference on it (PyObject_GC_New took
   * it; Python's own dealloc of subclasses gives it back the same way) */
  Py_DECREF (type);
}

/* Whether PyGObject keeps a wrapper where wrapper_new and wrapper_dealloc
 * look for it: wraps a new tensor its own way and checks the qdata. */
static gboolean
wrappers_as_assumed (void)
{
  DlTensor *t = dl_tensor_new_scalar (0.0, DL_DTYPE_FLOAT32);
  PyObject *wrapper;
  gboolean ok;

  if (t == NULL || (wrapper_key = g_quark_try_string ("PyGObject::wrapper")) == 0)
    {
      g_clear_object (&t);
      return FALSE;
    }
  wrapper = pygobject_new_full (G_OBJECT (t), TRUE, NULL);
  if (wrapper == NULL)
    {
      PyErr_Clear ();
      return FALSE;
    }
  ok = Py_TYPE (wrapper) == tensor_type && g_object_get_qdata (G_OBJECT (t), wrapper_key) == wrapper
       && pygobject_get (wrapper) == G_OBJECT (t) && G_OBJECT (t)->ref_count == 1;
  Py_DECREF (wrapper);
  return ok;
}

/* Whether results get wrapper_new's wrappers; decided once the overrides
 * have made the Tensor class PyGObject's class of libdl's tensor type
 * (after install(), at the end of the package's import). */
static gboolean
own_wrappers (void)
{
  if (G_LIKELY (wrappers != WRAPPERS_UNDECIDED))
    return wrappers == WRAPPERS_OWN;
  if (pygobject_lookup_class (DL_TYPE_TENSOR) != tensor_type)
    return FALSE;
  wrappers = WRAPPERS_PYGOBJECT;
  if (tensor_type->tp_dealloc != wrapper_dealloc && wrappers_as_assumed ())
    {
      pygobject_tensor_dealloc = tensor_type->tp_dealloc;
      tensor_type->tp_dealloc = wrapper_dealloc;
      wrappers = WRAPPERS_OWN;
    }
  return wrappers == WRAPPERS_OWN;
}

/* ---- results ------------------------------------------------------------ */

/* The wrapper of a new tensor (taking the reference over), or FALLBACK on
 * a GError. */
static PyObject *
finish (DlTensor *result, GError *error)
{
  PyObject *obj;

  if (result == NULL)
    {
      g_clear_error (&error);
      return FALLBACK;
    }
  /* only our reference: no wrapper can exist (a wrapper holds one) */
  if (own_wrappers () && g_atomic_int_get (&G_OBJECT (result)->ref_count) == 1)
    return wrapper_new (result);
  obj = pygobject_new_full (G_OBJECT (result), TRUE, NULL);
  if (obj == NULL)
    g_object_unref (result);
  return obj;
}

/* self, for an in-place op (which returns self itself, transfer none). */
static PyObject *
finish_self (PyObject *self, DlTensor *result, GError *error)
{
  if (result == NULL)
    {
      g_clear_error (&error);
      return FALLBACK;
    }
  return Py_NewRef (self);
}

/* A new instance of a tuple subclass (torch.Size, return_types). */
static PyObject *
new_tuple (PyTypeObject *type, Py_ssize_t n)
{
  return type->tp_alloc (type, n);
}

static PyObject *
size_of (DlTensor *t)
{
  gsize n;
  const gint64 *shape = dl_tensor_get_shape (t, &n);
  PyObject *size = new_tuple (size_type, n);

  for (gsize i = 0; size && i < n; i++)
    {
      PyObject *v = PyLong_FromLongLong (shape[i]);

      if (v == NULL)
        Py_CLEAR (size);
      else
        PyTuple_SET_ITEM (size, i, v);
    }
  return size;
}

/* ---- handlers ----------------------------------------------------------- */

/* x.f(): fn.unary. */
static PyObject *
unary (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  GError *error = NULL;
  DlTensor *r;

  if (c->nargs || c->kwnames)
    return FALLBACK;
  RUN (is_big (t), r, e->fn.unary (t, &error));
  return finish (r, error);
}

/* x.f_() in place: fn.unary, returning x. */
static PyObject *
unary_inplace (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  GError *error = NULL;
  DlTensor *r;

  if (c->nargs || c->kwnames)
    return FALLBACK;
  RUN (is_big (t), r, e->fn.unary (t, &error));
  return finish_self (self, r, error);
}

/* x.f(other[, alpha=1]) and the operators: fn.binary with a tensor,
 * fn2.scalar with a number. */
static PyObject *
binary (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  DlTensor *other, *r;
  gdouble v;

  if (!parse (e, c, arg) || arg[0] == NULL || !is_one (arg[1]))
    return FALLBACK;
  switch (operand (t, arg[0], &other, &v))
    {
      case OPERAND_TENSOR:
        RUN (is_big (t) || is_big (other), r, e->fn.binary (t, other, &error));
        break;
      case OPERAND_NUMBER:
        if (e->fn2.scalar == NULL)
          return FALLBACK;
        RUN (is_big (t), r, e->fn2.scalar (t, v, &error));
        break;
      default:
        return FALLBACK;
    }
  return finish (r, error);
}

/* number OP x (the reflected operators): fn2.scalar. */
static PyObject *
reflected (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  DlTensor *other, *r;
  gdouble v;

  if (!parse (e, c, arg) || arg[0] == NULL || operand (t, arg[0], &other, &v) != OPERAND_NUMBER)
    return FALLBACK;
  RUN (is_big (t), r, e->fn2.scalar (t, v, &error));
  return finish (r, error);
}

/* x.f_(other[, alpha=1]) and x OP= other: as binary, in place. */
static PyObject *
binary_inplace (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  DlTensor *other, *r;
  gdouble v;

  if (!parse (e, c, arg) || arg[0] == NULL || !is_one (arg[1]))
    return FALLBACK;
  switch (operand (t, arg[0], &other, &v))
    {
      case OPERAND_TENSOR:
        RUN (is_big (t) || is_big (other), r, e->fn.binary (t, other, &error));
        break;
      case OPERAND_NUMBER:
        RUN (is_big (t), r, e->fn2.scalar (t, v, &error));
        break;
      default:
        return FALLBACK;
    }
  return finish_self (self, r, error);
}

/* x.pow(exponent) and x ** exponent: fn.binary, a Python number going as a
 * wrapped 0-d tensor (int64 for an int, float64 for a float), as the Python
 * method sends it. */
static PyObject *
power (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  DlTensor *other, *wrapped = NULL, *r;
  gdouble v;

  if (!parse (e, c, arg) || arg[0] == NULL)
    return FALLBACK;
  if ((other = tensor_of (arg[0])) == NULL)
    {
      if (!get_double (arg[0], &v))
        return FALLBACK;
      other = wrapped = dl_tensor_new_wrapped_scalar (
          v, PyFloat_CheckExact (arg[0]) ? DL_DTYPE_FLOAT64 : DL_DTYPE_INT64);
    }
  RUN (is_big (t) || is_big (other), r, e->fn.binary (t, other, &error));
  g_clear_object (&wrapped);
  return finish (r, error);
}

/* A clamp bound as the Python method makes it: None, a tensor, or a
 * wrapped 0-d tensor for an int or a float (new reference in *out); FALSE
 * for anything else, which goes to Python. */
static gboolean
bound_of (PyObject *o, DlTensor **out)
{
  DlTensor *t;
  gint64 i;

  *out = NULL;
  if (is_none (o))
    return TRUE;
  if ((t = tensor_of (o)))
    *out = g_object_ref (t);
  else if (PyFloat_CheckExact (o))
    *out = dl_tensor_new_wrapped_scalar (PyFloat_AS_DOUBLE (o), DL_DTYPE_FLOAT64);
  else if (get_int64 (o, &i))
    *out = dl_tensor_new_wrapped_scalar ((gdouble)i, DL_DTYPE_INT64);
  else
    return FALSE;
  return TRUE;
}

/* A clamp bound that is a Python int or float (not a bool), or None: as
 * a double (None: @none), or FALSE. */
static gboolean
bound_number (PyObject *o, gdouble none, gdouble *v)
{
  gint64 i;

  if (is_none (o))
    *v = none;
  else if (PyFloat_CheckExact (o))
    *v = PyFloat_AS_DOUBLE (o);
  else if (get_int64 (o, &i))
    *v = (gdouble)i;
  else
    return FALSE;
  return TRUE;
}

/* x.clamp(min=None, max=None) and x.clamp_(...): fn2.bound_numbers when
 * both bounds are numbers or None on a float tensor (a missing bound as
 * an infinity), else fn.bounds with numbers as wrapped 0-d tensors; both
 * bounds missing goes to Python (its error). */
static PyObject *
bounds (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  g_autoptr (DlTensor) lo = NULL;
  g_autoptr (DlTensor) hi = NULL;
  gboolean inplace = e->fn.bounds == dl_tensor_clamp_;
  GError *error = NULL;
  gdouble vlo, vhi;
  DlTensor *r;

  if (!parse (e, c, arg) || (is_none (arg[0]) && is_none (arg[1])))
    return FALLBACK;
  if (dl_dtype_is_floating_point (dl_tensor_get_dtype (t)) && bound_number (arg[0], -INFINITY, &vlo)
      && bound_number (arg[1], INFINITY, &vhi))
    RUN (is_big (t), r, e->fn2.bound_numbers (t, vlo, vhi, &error));
  else if (bound_of (arg[0], &lo) && bound_of (arg[1], &hi))
    RUN (is_big (t), r, e->fn.bounds (t, lo, hi, &error));
  else
    return FALLBACK;
  return inplace ? finish_self (self, r, error) : finish (r, error);
}

/* x.sum(dim=None, keepdim=False, dtype=None): fn2.unary over every dim
 * (keepdim then unused, as in the Python method), fn.dims_keep over some;
 * x.amax(dim=(), keepdim=False): no fn2.unary, fn.dims_keep over some, or
 * over every dim for none given ([] means all of them there). */
static PyObject *
reduce (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  gint64 dims[MAX_DIMS];
  gboolean keepdim;
  DlTensor *r;
  gsize n;

  if (!parse (e, c, arg) || !is_none (arg[2]) || !get_bool (arg[1], &keepdim))
    return FALLBACK;
  if (is_none (arg[0]) && e->fn2.unary)
    RUN (is_big (t), r, e->fn2.unary (t, &error));
  else if (is_none (arg[0]))
    RUN (is_big (t), r, e->fn.dims_keep (t, dims, 0, keepdim, &error));
  else if (get_dims (arg[0], dims, &n))
    RUN (is_big (t), r, e->fn.dims_keep (t, dims, n, keepdim, &error));
  else
    return FALLBACK;
  return finish (r, error);
}

/* x.max(dim=None, keepdim=False): fn2.unary over every dim, or
 * (values, indices) from fn.dim_keep_indices along one. */
static PyObject *
extremum (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS], *values, *indices, *result;
  GError *error = NULL;
  DlTensor *r, *idx = NULL;
  gboolean keepdim;
  gint64 dim;

  if (!parse (e, c, arg) || !get_bool (arg[1], &keepdim))
    return FALLBACK;
  if (is_none (arg[0]))
    {
      RUN (is_big (t), r, e->fn2.unary (t, &error));
      return finish (r, error);
    }
  if (!get_int64 (arg[0], &dim))
    return FALLBACK;
  RUN (is_big (t), r, e->fn.dim_keep_indices (t, dim, keepdim, &idx, &error));
  if ((values = finish (r, error)) == NULL)
    {
      g_clear_object (&idx);
      return NULL;
    }
  if ((indices = finish (idx, NULL)) == NULL)
    {
      Py_DECREF (values);
      return NULL;
    }
  if ((result = new_tuple (result_type_of (e), 2)) == NULL)
    {
      Py_DECREF (values);
      Py_DECREF (indices);
      return NULL;
    }
  PyTuple_SET_ITEM (result, 0, values);
  PyTuple_SET_ITEM (result, 1, indices);
  return result;
}

/* x.argmax(dim=None, keepdim=False): fn.dim_keep along dim, or along the
 * tensor flattened. */
static PyObject *
arg_extremum (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  static const gint64 flat[1] = { -1 };
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  gboolean keepdim;
  DlTensor *r, *v;
  gint64 dim;

  if (!parse (e, c, arg) || !get_bool (arg[1], &keepdim))
    return FALLBACK;
  if (is_none (arg[0]))
    {
      if ((v = dl_tensor_reshape (t, flat, 1, &error)) == NULL)
        return finish (NULL, error);
      RUN (is_big (v), r, e->fn.dim_keep (v, 0, FALSE, &error));
      g_object_unref (v);
    }
  else if (get_int64 (arg[0], &dim))
    RUN (is_big (t), r, e->fn.dim_keep (t, dim, keepdim, &error));
  else
    return FALLBACK;
  return finish (r, error);
}

/* x.view(*shape) and x.view(shape): fn.shape. */
static PyObject *
shape (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  gint64 sizes[MAX_DIMS];
  PyObject *const *items;
  GError *error = NULL;
  Py_ssize_t n;
  DlTensor *r;

  if (!varargs (c, &items, &n))
    return FALLBACK;
  for (Py_ssize_t i = 0; i < n; i++)
    if (!get_int64 (items[i], &sizes[i]))
      return FALLBACK;
  RUN (is_big (t), r, e->fn.shape (t, sizes, n, &error));
  return finish (r, error);
}

/* x.permute(*dims) and x.permute(dims): fn.dims. */
static PyObject *
dims (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *const *items;
  GError *error = NULL;
  gint64 dims[MAX_DIMS];
  Py_ssize_t n;
  DlTensor *r;

  if (!varargs (c, &items, &n))
    return FALLBACK;
  for (Py_ssize_t i = 0; i < n; i++)
    if (!get_int64 (items[i], &dims[i]))
      return FALLBACK;
  r = e->fn.dims (t, dims, n, &error);
  return finish (r, error);
}

/* x.f(dim[, dtype=None]): fn.dim. */
static PyObject *
dim (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  DlTensor *r;
  gint64 d;

  if (!parse (e, c, arg) || arg[0] == NULL || !get_int64 (arg[0], &d) || !is_none (arg[1]))
    return FALLBACK;
  RUN (is_big (t), r, e->fn.dim (t, d, &error));
  return finish (r, error);
}

/* x.f(dim0, dim1), each dim defaulting to defaults[] unless required. */
static PyObject *
dim2 (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  DlTensor *r;
  gint64 d[2];

  if (!parse (e, c, arg))
    return FALLBACK;
  for (int i = 0; i < 2; i++)
    {
      if (arg[i] == NULL && i >= e->n_required)
        d[i] = e->defaults[i];
      else if (arg[i] == NULL || !get_int64 (arg[i], &d[i]))
        return FALLBACK;
    }
  RUN (is_big (t), r, e->fn.dim2 (t, d[0], d[1], &error));
  return finish (r, error);
}

/* x.squeeze(dim=None): fn.dim along one dim, or the shape without its 1s. */
static PyObject *
squeeze (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  gint64 sizes[MAX_DIMS];
  const gint64 *shape;
  gsize n, k = 0;
  DlTensor *r;
  gint64 d;

  if (!parse (e, c, arg))
    return FALLBACK;
  if (!is_none (arg[0]))
    {
      if (!get_int64 (arg[0], &d))
        return FALLBACK;
      r = e->fn.dim (t, d, &error);
    }
  else
    {
      shape = dl_tensor_get_shape (t, &n);
      if (n > MAX_DIMS)
        return FALLBACK;
      for (gsize i = 0; i < n; i++)
        if (shape[i] != 1)
          sizes[k++] = shape[i];
      r = dl_tensor_reshape (t, sizes, k, &error);
    }
  return finish (r, error);
}

/* x.fill_(value): fn.scalar with a Python int or float, returning x. */
static PyObject *
fill (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  DlTensor *r;
  gdouble v;

  if (!parse (e, c, arg) || arg[0] == NULL || !get_double (arg[0], &v))
    return FALLBACK;
  RUN (is_big (t), r, e->fn.scalar (t, v, &error));
  return finish_self (self, r, error);
}

/* x.copy_(src) with a tensor: fn.binary, returning x. */
static PyObject *
copy (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  DlTensor *src, *r;

  if (!parse (e, c, arg) || arg[0] == NULL || (src = tensor_of (arg[0])) == NULL)
    return FALLBACK;
  RUN (is_big (t) || is_big (src), r, e->fn.binary (t, src, &error));
  return finish_self (self, r, error);
}

/* x.size(dim=None). */
static PyObject *
size (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *arg[MAX_PARAMS];
  GError *error = NULL;
  gint64 s;
  gint64 d;

  if (!parse (e, c, arg))
    return FALLBACK;
  if (is_none (arg[0]))
    return size_of (t);
  if (!get_int64 (arg[0], &d))
    return FALLBACK;
  s = dl_tensor_get_size (t, d, &error);
  if (error)
    return finish (NULL, error);
  return PyLong_FromLongLong (s);
}

/* x.f() for a method that gives what the entry's getter gives. */
static PyObject *
call_getter (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  if (c->nargs || c->kwnames)
    return FALLBACK;
  return e->get (self, t);
}

/* x[i], x[a:b:c] and tuples of those: views through select and slice, as
 * the Python method applies them. Anything else (None, ..., tensors,
 * masks, more indices than dims) goes to Python. */
static PyObject *
getitem (const Entry *e, PyObject *self, DlTensor *t, const Call *c)
{
  PyObject *const *items;
  GError *error = NULL;
  Py_ssize_t n;
  DlTensor *cur;
  gint d = 0;

  if (c->nargs != 1 || c->kwnames)
    return FALLBACK;
  if (PyTuple_CheckExact (c->args[0]))
    {
      items = PySequence_Fast_ITEMS (c->args[0]);
      n = PyTuple_GET_SIZE (c->args[0]);
    }
  else
    {
      items = c->args;
      n = 1;
    }
  if (n == 0 || n > dl_tensor_get_ndim (t))
    return FALLBACK;
  cur = g_object_ref (t);
  for (Py_ssize_t i = 0; cur && i < n; i++)
    {
      PyObject *item = items[i];
      DlTensor *next = NULL;
      gint64 index, start = 0, stop = G_MAXINT64, step = 1;

      if (get_int64 (item, &index))
        next = dl_tensor_select (cur, d, index, &error);
      else if (PySlice_Check (item))
        {
          PySliceObject *s = (PySliceObject *)item;

          if ((is_none (s->start) || get_int64 (s->start, &start))
              && (is_none (s->stop) || get_int64 (s->stop, &stop))
              && (is_none (s->step) || get_int64 (s->step, &step)) && step > 0)
            next = dl_tensor_slice (cur, d++, start, stop, step, &error);
        }
      g_object_unref (cur);
      cur = next;
    }
  return finish (cur, error);
}

/* ---- getters and setters ------------------------------------------------ */

static PyObject *
get_shape (PyObject *self, DlTensor *t)
{
  return size_of (t);
}

static PyObject *
get_ndim (PyObject *self, DlTensor *t)
{
  return PyLong_FromLong (dl_tensor_get_ndim (t));
}

static PyObject *
get_numel (PyObject *self, DlTensor *t)
{
  return PyLong_FromLongLong (dl_tensor_numel (t));
}

static PyObject *
get_dtype (PyObject *self, DlTensor *t)
{
  guint d = dl_tensor_get_dtype (t);

  if (d >= G_N_ELEMENTS (dtype_objects) || dtype_objects[d] == NULL)
    return FALLBACK;
  return Py_NewRef (dtype_objects[d]);
}

static PyObject *
get_device (PyObject *self, DlTensor *t)
{
  if (strcmp (dl_device_get_name (dl_tensor_get_device (t)), "cpu") != 0)
    return FALLBACK;
  return Py_NewRef (cpu_device);
}

static PyObject *
get_requires_grad (PyObject *self, DlTensor *t)
{
  return PyBool_FromLong (dl_tensor_get_requires_grad (t));
}

static PyObject *
get_is_leaf (PyObject *self, DlTensor *t)
{
  return PyBool_FromLong (dl_tensor_is_leaf (t));
}

/* x.grad: the grad's wrapper, kept as long as the grad lives. A wrapper
 * with an instance dict is one PyGObject keeps alive while its GObject has
 * other references (toggle references), so giving the grad's wrapper its
 * (empty) dict makes x.grad, read again, the same object at the cost of a
 * lookup, as PyTorch's is, rather than a new wrapper each time; when x
 * lets go of the grad, the wrapper goes with it. */
static PyObject *
get_grad (PyObject *self, DlTensor *t)
{
  DlTensor *grad = dl_tensor_get_grad (t);
  PyObject *wrapper, *dict;

  if (grad == NULL)
    Py_RETURN_NONE;
  wrapper = pygobject_new (G_OBJECT (grad));
  if (wrapper && ((PyGObject *)wrapper)->inst_dict == NULL)
    {
      if ((dict = PyObject_GetAttrString (wrapper, "__dict__")) == NULL)
        Py_CLEAR (wrapper);
      Py_XDECREF (dict);
    }
  return wrapper;
}

/* x.item(): a float, an int (exact: integers beyond 2^53 go to Python,
 * which reads them through numpy) or a bool. */
static PyObject *
get_item (PyObject *self, DlTensor *t)
{
  DlDType dtype = dl_tensor_get_dtype (t);
  GError *error = NULL;
  gdouble v;

  if (dl_tensor_numel (t) != 1)
    return FALLBACK;
  v = dl_tensor_item (t, &error);
  if (error)
    return finish (NULL, error);
  if (dtype == DL_DTYPE_BOOL)
    return PyBool_FromLong (v != 0);
  if (dl_dtype_is_floating_point (dtype))
    return PyFloat_FromDouble (v);
  if (fabs (v) >= 9007199254740992.0)
    return FALLBACK;
  return PyLong_FromDouble (v);
}

static int
set_requires_grad (PyObject *self, DlTensor *t, PyObject *value)
{
  GError *error = NULL;
  gboolean v;

  if (!get_bool (value, &v) || !dl_tensor_set_requires_grad (t, v, &error))
    {
      g_clear_error (&error);
      return 0;
    }
  return 1;
}

static int
set_grad (PyObject *self, DlTensor *t, PyObject *value)
{
  GError *error = NULL;
  DlTensor *grad = NULL;

  if ((value != Py_None && (grad = tensor_of (value)) == NULL)
      || !dl_tensor_set_grad (t, grad, &error))
    {
      g_clear_error (&error);
      return 0;
    }
  return 1;
}

/* ---- adapters: libdl calls in the shapes above -------------------------- */

static DlTensor *
detach (DlTensor *self, GError **error)
{
  return dl_tensor_detach (self);
}

/* x.clone (): torch's default layout, preserve_format */
static DlTensor *
clone_preserve (DlTensor *self, GError **error)
{
  return dl_tensor_clone_format (self, DL_MEMORY_FORMAT_PRESERVE, error);
}

static DlTensor *
sub_scalar_ (DlTensor *self, gdouble other, GError **error)
{
  return dl_tensor_add_scalar_ (self, -other, error);
}

/* ---- the table ----------------------------------------------------------- */

#define UNARY(name, f) { name, unary, { .unary = f } }
#define BINARY(name, f, s) { name, binary, { .binary = f }, { .scalar = s }, { "other" } }
#define BINARY_ALPHA(name, f, s)                                                                   \
  { name, binary, { .binary = f }, { .scalar = s }, { "other", "alpha" } }
#define REFLECTED(name, s) { name, reflected, { NULL }, { .scalar = s }, { "other" } }
#define INPLACE(name, f, s) { name, binary_inplace, { .binary = f }, { .scalar = s }, { "other" } }
#define INPLACE_ALPHA(name, f, s)                                                                  \
  { name, binary_inplace, { .binary = f }, { .scalar = s }, { "other", "alpha" } }
#define PROPERTY(name, get_fn, set_fn)                                                             \
  { name, NULL, { NULL }, { NULL }, { NULL }, { 0, 0 }, 0, get_fn, set_fn }
#define GETTER_METHOD(name, get_fn)                                                                \
  { name, call_getter, { NULL }, { NULL }, { NULL }, { 0, 0 }, 0, get_fn }

static const Entry entries[] = {
  /* arithmetic */
  BINARY ("__add__", dl_tensor_add, dl_tensor_add_scalar),
  BINARY ("__sub__", dl_tensor_sub, dl_tensor_sub_scalar),
  BINARY ("__mul__", dl_tensor_mul, dl_tensor_mul_scalar),
  BINARY ("__truediv__", dl_tensor_div, dl_tensor_div_scalar),
  BINARY ("__matmul__", dl_tensor_matmul, NULL),
  BINARY_ALPHA ("add", dl_tensor_add, dl_tensor_add_scalar),
  BINARY_ALPHA ("sub", dl_tensor_sub, dl_tensor_sub_scalar),
  BINARY ("mul", dl_tensor_mul, dl_tensor_mul_scalar),
  BINARY ("div", dl_tensor_div, dl_tensor_div_scalar),
  BINARY ("matmul", dl_tensor_matmul, NULL),
  BINARY ("mm", dl_tensor_mm, NULL),
  BINARY ("bmm", dl_tensor_bmm, NULL),
  BINARY ("maximum", dl_tensor_maximum, NULL),
  BINARY ("minimum", dl_tensor_minimum, NULL),
  REFLECTED ("__radd__", dl_tensor_add_scalar),
  REFLECTED ("__rmul__", dl_tensor_mul_scalar),
  REFLECTED ("__rsub__", dl_tensor_rsub_scalar),
  REFLECTED ("__rtruediv__", dl_tensor_rdiv_scalar),
  { "pow", power, { .binary = dl_tensor_pow }, { NULL }, { "exponent" } },
  { "__pow__", power, { .binary = dl_tensor_pow }, { NULL }, { "other" } },

  /* comparisons */
  BINARY ("__eq__", dl_tensor_eq, dl_tensor_eq_scalar),
  BINARY ("__ne__", dl_tensor_ne, dl_tensor_ne_scalar),
  BINARY ("__lt__", dl_tensor_lt, dl_tensor_lt_scalar),
  BINARY ("__le__", dl_tensor_le, dl_tensor_le_scalar),
  BINARY ("__gt__", dl_tensor_gt, dl_tensor_gt_scalar),
  BINARY ("__ge__", dl_tensor_ge, dl_tensor_ge_scalar),
  BINARY ("eq", dl_tensor_eq, dl_tensor_eq_scalar),
  BINARY ("ne", dl_tensor_ne, dl_tensor_ne_scalar),
  BINARY ("lt", dl_tensor_lt, dl_tensor_lt_scalar),
  BINARY ("le", dl_tensor_le, dl_tensor_le_scalar),
  BINARY ("gt", dl_tensor_gt, dl_tensor_gt_scalar),
  BINARY ("ge", dl_tensor_ge, dl_tensor_ge_scalar),

  /* in place */
  INPLACE_ALPHA ("add_", dl_tensor_add_, dl_tensor_add_scalar_),
  INPLACE_ALPHA ("sub_", dl_tensor_sub_, sub_scalar_),
  INPLACE ("mul_", dl_tensor_mul_, dl_tensor_mul_scalar_),
  INPLACE ("div_", dl_tensor_div_, dl_tensor_div_scalar_),
  INPLACE ("__iadd__", dl_tensor_add_, dl_tensor_add_scalar_),
  INPLACE ("__isub__", dl_tensor_sub_, sub_scalar_),
  INPLACE ("__imul__", dl_tensor_mul_, dl_tensor_mul_scalar_),
  INPLACE ("__itruediv__", dl_tensor_div_, dl_tensor_div_scalar_),
  { "zero_", unary_inplace, { .unary = dl_tensor_zero_ } },
  { "relu_", unary_inplace, { .unary = dl_tensor_relu_ } },
  { "fill_", fill, { .scalar = dl_tensor_fill_ }, { NULL }, { "value" } },
  { "clamp_", bounds, { .bounds = dl_tensor_clamp_ }, { .bound_numbers = dl_tensor_clamp_scalar_ },
    { "min", "max" } },
  { "clamp", bounds, { .bounds = dl_tensor_clamp }, { .bound_numbers = dl_tensor_clamp_scalar },
    { "min", "max" } },
  { "copy_", copy, { .binary = dl_tensor_copy_ }, { NULL }, { "src" } },

  /* pointwise */
  UNARY ("__neg__", dl_tensor_neg),
  UNARY ("__abs__", dl_tensor_abs),
  /* every unary op of the table (libdl/ops/dl-ops-pointwise.def) */
#define DL_UNARY_OP(name, ...) UNARY (#name, dl_tensor_##name),
#define DL_BINARY_OP(name, ...)
#include "ops/dl-ops-pointwise.def"
#undef DL_UNARY_OP
#undef DL_BINARY_OP
  UNARY ("logical_not", dl_tensor_logical_not),
  UNARY ("clone", clone_preserve),
  UNARY ("detach", detach),

  /* reductions */
  { "sum", reduce, { .dims_keep = dl_tensor_sum_dims }, { .unary = dl_tensor_sum },
    { "dim", "keepdim", "dtype" } },
  { "mean", reduce, { .dims_keep = dl_tensor_mean_dims }, { .unary = dl_tensor_mean },
    { "dim", "keepdim", "dtype" } },
  { "amax", reduce, { .dims_keep = dl_tensor_amax }, { NULL }, { "dim", "keepdim" } },
  { "amin", reduce, { .dims_keep = dl_tensor_amin }, { NULL }, { "dim", "keepdim" } },
  { "max", extremum, { .dim_keep_indices = dl_tensor_max_dim }, { .unary = dl_tensor_max },
    { "dim", "keepdim" } },
  { "min", extremum, { .dim_keep_indices = dl_tensor_min_dim }, { .unary = dl_tensor_min },
    { "dim", "keepdim" } },
  { "argmax", arg_extremum, { .dim_keep = dl_tensor_argmax }, { NULL }, { "dim", "keepdim" } },
  { "argmin", arg_extremum, { .dim_keep = dl_tensor_argmin }, { NULL }, { "dim", "keepdim" } },
  { "softmax", dim, { .dim = dl_tensor_softmax }, { NULL }, { "dim", "dtype" } },
  { "log_softmax", dim, { .dim = dl_tensor_log_softmax }, { NULL }, { "dim", "dtype" } },

  /* views and shape */
  { "view", shape, { .shape = dl_tensor_view } },
  { "reshape", shape, { .shape = dl_tensor_reshape } },
  { "expand", shape, { .shape = dl_tensor_expand } },
  { "permute", dims, { .dims = dl_tensor_permute } },
  { "unsqueeze", dim, { .dim = dl_tensor_unsqueeze }, { NULL }, { "dim" } },
  { "squeeze", squeeze, { .dim = dl_tensor_squeeze_dim }, { NULL }, { "dim" } },
  { "transpose", dim2, { .dim2 = dl_tensor_transpose }, { NULL }, { "dim0", "dim1" }, { 0, 0 },
    2 },
  { "flatten", dim2, { .dim2 = dl_tensor_flatten }, { NULL }, { "start_dim", "end_dim" },
    { 0, -1 }, 0 },
  UNARY ("t", dl_tensor_t),
  UNARY ("contiguous", dl_tensor_contiguous),
  { "__getitem__", getitem },

  /* attributes */
  { "size", size, { NULL }, { NULL }, { "dim" } },
  GETTER_METHOD ("dim", get_ndim),
  GETTER_METHOD ("numel", get_numel),
  GETTER_METHOD ("item", get_item),
  PROPERTY ("shape", get_shape, NULL),
  PROPERTY ("ndim", get_ndim, NULL),
  PROPERTY ("dtype", get_dtype, NULL),
  PROPERTY ("device", get_device, NULL),
  PROPERTY ("requires_grad", get_requires_grad, set_requires_grad),
  PROPERTY ("grad", get_grad, set_grad),
  PROPERTY ("is_leaf", get_is_leaf, NULL),
};

#define N_ENTRIES G_N_ELEMENTS (entries)

/* What each entry replaced: the Python method or property, or the typelib
 * method; and the getset definitions of the properties. */
static PyObject *fallbacks[N_ENTRIES];
static PyGetSetDef getsets[N_ENTRIES];
static PyTypeObject *result_types[N_ENTRIES];

static PyObject *
fallback_of (const Entry *e)
{
  return fallbacks[e - entries];
}

static PyTypeObject *
result_type_of (const Entry *e)
{
  return result_types[e - entries];
}

static DlTensor *
self_tensor (PyObject *self)
{
  return PyObject_TypeCheck (self, tensor_type) ? (DlTensor *)pygobject_get (self) : NULL;
}

/* ---- the method descriptor type ------------------------------------------ */

typedef struct
{
  PyObject_HEAD
  vectorcallfunc vectorcall;
  const Entry *entry;
} FastMethod;

static PyObject *
method_vectorcall (PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
  const Entry *e = ((FastMethod *)callable)->entry;
  Py_ssize_t nargs = PyVectorcall_NARGS (nargsf);
  DlTensor *t;

  if (nargs >= 1 && (t = self_tensor (args[0])))
    {
      Call c = { args + 1, nargs - 1, kwnames };
      PyObject *result = e->handler (e, args[0], t, &c);

      if (result || PyErr_Occurred ())
        return result;
    }
  return PyObject_Vectorcall (fallback_of (e), args, nargsf, kwnames);
}

static PyObject *
method_get (PyObject *self, PyObject *obj, PyObject *type)
{
  if (obj == NULL)
    return Py_NewRef (self);
  return PyMethod_New (self, obj);
}

static PyObject *
method_repr (PyObject *self)
{
  return PyUnicode_FromFormat ("<C method 'Tensor.%s' of _dl_fast>",
                               ((FastMethod *)self)->entry->name);
}

static PyObject *
method_name (PyObject *self, void *closure)
{
  return PyUnicode_FromString (((FastMethod *)self)->entry->name);
}

static PyObject *
method_qualname (PyObject *self, void *closure)
{
  return PyUnicode_FromFormat ("Tensor.%s", ((FastMethod *)self)->entry->name);
}

/* The method it replaced, which handles what this one does not. */
static PyObject *
method_wrapped (PyObject *self, void *closure)
{
  return Py_NewRef (fallback_of (((FastMethod *)self)->entry));
}

static PyObject *
method_doc (PyObject *self, void *closure)
{
  return PyObject_GetAttrString (fallback_of (((FastMethod *)self)->entry), "__doc__");
}

static PyGetSetDef method_getset[] = {
  { "__name__", method_name, NULL, NULL, NULL },
  { "__qualname__", method_qualname, NULL, NULL, NULL },
  { "__wrapped__", method_wrapped, NULL, NULL, NULL },
  { "__doc__", method_doc, NULL, NULL, NULL },
  { NULL },
};

/* Named method_descriptor as CPython's own, which it behaves as. */
static PyTypeObject method_type = {
  PyVarObject_HEAD_INIT (NULL, 0).tp_name = "_dl_fast.method_descriptor",
  .tp_basicsize = sizeof (FastMethod),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
  .tp_vectorcall_offset = offsetof (FastMethod, vectorcall),
  .tp_call = PyVectorcall_Call,
  .tp_descr_get = method_get,
  .tp_repr = method_repr,
  .tp_getset = method_getset,
};

static PyObject *
method_new (const Entry *e)
{
  FastMethod *m = PyObject_New (FastMethod, &method_type);

  if (m)
    {
      m->vectorcall = method_vectorcall;
      m->entry = e;
    }
  return (PyObject *)m;
}

/* ---- properties ------------------------------------------------------------ */

static PyObject *
property_get (PyObject *self, void *closure)
{
  const Entry *e = closure;
  PyObject *fallback = fallback_of (e);
  DlTensor *t = self_tensor (self);

  if (t)
    {
      PyObject *result = e->get (self, t);

      if (result || PyErr_Occurred ())
        return result;
    }
  return Py_TYPE (fallback)->tp_descr_get (fallback, self, (PyObject *)Py_TYPE (self));
}

static int
property_set (PyObject *self, PyObject *value, void *closure)
{
  const Entry *e = closure;
  PyObject *fallback = fallback_of (e);
  DlTensor *t = self_tensor (self);

  if (t && value && e->set)
    {
      int done = e->set (self, t, value);

      if (done)
        return done < 0 ? -1 : 0;
    }
  /* the property's setter, deleter, or its AttributeError */
  return Py_TYPE (fallback)->tp_descr_set (fallback, self, value);
}

/* ---- install --------------------------------------------------------------- */

static gboolean
is_tuple_type (PyObject *o)
{
  return PyType_Check (o) && PyType_IsSubtype ((PyTypeObject *)o, &PyTuple_Type);
}

/* install(cls, dtypes, size, cpu, return_types): replaces cls's methods
 * and properties named in the table by the C ones, keeping what they
 * replace as their fallbacks. cls is the Tensor class; dtypes maps each
 * DlDType value to its dtype object; size is torch.Size; cpu the device
 * object of the CPU; return_types the module torch.return_types, whose
 * tuple subclass of an entry's name (max, min) is the class of what the
 * entry returns as (values, indices). */
static PyObject *
fast_install (PyObject *module, PyObject *args)
{
  PyObject *cls, *dtypes, *size, *cpu, *return_types, *key, *value;
  Py_ssize_t pos = 0;

  if (!PyArg_ParseTuple (args, "O!O!OOO:install", &PyType_Type, &cls, &PyDict_Type, &dtypes,
                         &size, &cpu, &return_types))
    return NULL;
  if (!PyType_IsSubtype ((PyTypeObject *)cls, pygobject_lookup_class (DL_TYPE_TENSOR))
      || !is_tuple_type (size))
    {
      PyErr_SetString (PyExc_TypeError, "install() expects the Dl.Tensor class, a dict of dtypes, "
                                        "torch.Size, a device and torch.return_types");
      return NULL;
    }
  if (tensor_type != NULL)
    {
      PyErr_SetString (PyExc_RuntimeError, "install() was already called");
      return NULL;
    }
  while (PyDict_Next (dtypes, &pos, &key, &value))
    {
      long d = PyLong_AsLong (key);

      if (d < 0 || d >= (long)G_N_ELEMENTS (dtype_objects))
        {
          if (!PyErr_Occurred ())
            PyErr_SetString (PyExc_ValueError, "install(): a dtype value out of range");
          return NULL;
        }
      Py_XSETREF (dtype_objects[d], Py_NewRef (value));
    }
  for (gsize i = 0; i < N_ENTRIES; i++)
    {
      const Entry *e = &entries[i];
      PyObject *descr;

      if (!(fallbacks[i] = PyObject_GetAttrString (cls, e->name)))
        return NULL;
      if (e->handler == extremum)
        {
          PyObject *type = PyObject_GetAttrString (return_types, e->name);

          if (type == NULL)
            return NULL;
          if (!is_tuple_type (type))
            {
              PyErr_Format (PyExc_TypeError, "install(): return_types.%s is not a tuple subclass",
                            e->name);
              Py_DECREF (type);
              return NULL;
            }
          result_types[i] = (PyTypeObject *)type;
        }
      if (e->handler)
        descr = method_new (e);
      else if (Py_TYPE (fallbacks[i])->tp_descr_get == NULL
               || Py_TYPE (fallbacks[i])->tp_descr_set == NULL)
        {
          PyErr_Format (PyExc_TypeError, "install(): Tensor.%s is not a property", e->name);
          return NULL;
        }
      else
        {
          getsets[i] = (PyGetSetDef){ e->name, property_get, property_set, NULL, (void *)e };
          descr = PyDescr_NewGetSet ((PyTypeObject *)cls, &getsets[i]);
        }
      if (descr == NULL || PyObject_SetAttrString (cls, e->name, descr) < 0)
        {
          Py_XDECREF (descr);
          return NULL;
        }
      Py_DECREF (descr);
    }
  size_type = (PyTypeObject *)Py_NewRef (size);
  cpu_device = Py_NewRef (cpu);
  tensor_type = (PyTypeObject *)Py_NewRef (cls);
  Py_RETURN_NONE;
}

/* names(): the names of the methods and properties install() replaces. */
static PyObject *
fast_names (PyObject *module, PyObject *unused)
{
  PyObject *names = PyTuple_New (N_ENTRIES);

  for (gsize i = 0; names && i < N_ENTRIES; i++)
    {
      PyObject *name = PyUnicode_FromString (entries[i].name);

      if (name == NULL)
        Py_CLEAR (names);
      else
        PyTuple_SET_ITEM (names, i, name);
    }
  return names;
}

/* ---- tensors over Python-owned memory --------------------------------- */

/* Drops the reference a tensor held on the owner of its memory. C code
 * only: no Python frame runs, so no asynchronous exception (a signal's
 * KeyboardInterrupt) can be raised here and lost. */
static void
release_owner (gpointer owner)
{
  PyGILState_STATE state;

  if (!Py_IsInitialized ())
    return; /* the interpreter is gone, and the owner with it */
  state = PyGILState_Ensure ();
  Py_DECREF ((PyObject *)owner);
  PyGILState_Release (state);
}

/* Reads a sequence of ints into @values (at most MAX_DIMS). */
static gboolean
get_int64s (PyObject *o, const char *what, gint64 *values, gsize *n)
{
  PyObject *seq = PySequence_Fast (o, what);

  if (seq == NULL)
    return FALSE;
  *n = PySequence_Fast_GET_SIZE (seq);
  if (*n > MAX_DIMS)
    {
      PyErr_Format (PyExc_ValueError, "%s: at most %d entries", what, MAX_DIMS);
      Py_DECREF (seq);
      return FALSE;
    }
  for (gsize i = 0; i < *n; i++)
    {
      values[i] = PyLong_AsLongLong (PySequence_Fast_GET_ITEM (seq, i));
      if (values[i] == -1 && PyErr_Occurred ())
        {
          Py_DECREF (seq);
          return FALSE;
        }
    }
  Py_DECREF (seq);
  return TRUE;
}

/* borrow(address, dtype, shape, strides, owner): a tensor over the memory
 * at address (elements of the DlDType value dtype, strides in elements)
 * that keeps a reference on owner until libdl lets go of the memory. */
static PyObject *
fast_borrow (PyObject *module, PyObject *args)
{
  unsigned long long address;
  int dtype;
  PyObject *shape_obj, *strides_obj, *owner;
  gint64 shape[MAX_DIMS], strides[MAX_DIMS];
  gsize n_shape, n_strides;
  GError *error = NULL;
  DlTensor *t;

  if (!PyArg_ParseTuple (args, "KiOOO:borrow", &address, &dtype, &shape_obj, &strides_obj, &owner)
      || !get_int64s (shape_obj, "borrow: shape", shape, &n_shape)
      || !get_int64s (strides_obj, "borrow: strides", strides, &n_strides))
    return NULL;
  Py_INCREF (owner);
  t = dl_tensor_new_from_address ((guint64)address, shape, n_shape, strides, n_strides,
                                  (DlDType)dtype, release_owner, owner, NULL, &error);
  if (t == NULL)
    {
      /* from_address released the memory, and so the reference, itself */
      PyErr_SetString (PyExc_RuntimeError, error->message);
      g_error_free (error);
      return NULL;
    }
  return finish (t, NULL);
}

/* own_wrappers(): whether tensors get this module's wrappers (see
 * wrapper_new), for the tests. */
static PyObject *
fast_own_wrappers (PyObject *module, PyObject *unused)
{
  return PyBool_FromLong (tensor_type != NULL && own_wrappers ());
}

static PyMethodDef module_methods[] = {
  { "borrow", fast_borrow, METH_VARARGS,
    "borrow(address, dtype, shape, strides, owner): a tensor over memory that owner keeps "
    "alive" },
  { "install", fast_install, METH_VARARGS,
    "install(cls, dtypes, size, cpu, return_types): give the Tensor class the C paths of its hot "
    "methods" },
  { "own_wrappers", fast_own_wrappers, METH_NOARGS,
    "own_wrappers(): whether tensor wrappers are made and freed by this module" },
  { "names", fast_names, METH_NOARGS,
    "names(): the methods and properties that install() gives C paths" },
  { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
  PyModuleDef_HEAD_INIT, "_dl_fast", "libdl's hot Tensor methods in C", -1, module_methods,
};

PyMODINIT_FUNC
PyInit__dl_fast (void)
{
  if (pygobject_init (3, 0, 0) == NULL || PyType_Ready (&method_type) < 0)
    return NULL;
  return PyModule_Create (&module_def);
}
