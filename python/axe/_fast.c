/* SPDX-License-Identifier: Apache-2.0 */
/*
 * axe._fast: the hot CuTe operations of axe.cute as a CPython extension,
 * linked statically against libaxe. A ctypes call costs about 0.4 us and a
 * ctypes result struct about 0.2 us, more than pycute's cheapest operations
 * allow for the 10x target (docs/bench.md); a METH_FASTCALL call into this
 * module costs about 0.05 us.
 *
 * The module defines one type, Layout: a Python object that holds the packed
 * axe_cute_layout inline, the Python shape/stride tuples (_shape, _stride,
 * decoded or given), whether the packed value is current (_packed) and a
 * generation counter (_gen). axe.cute subclasses it as axe.cute.Layout and
 * registers that subclass with setup(), so results are made as instances of
 * it. The type exports its packed value through the buffer protocol, so the
 * ctypes code of axe.cute reaches it with CuteLayout.from_buffer.
 *
 * Invariants: an operation reads an operand's packed value only when
 * _packed is true (otherwise it asks the operand's _pack method first); a
 * result is written only by a successful library call and is returned with
 * _packed true; a failing call is repeated once with a diagnostic and
 * becomes the AxeError that axe._lib.raise_error makes of the status and
 * the library's reason. An operand this module does not handle (another
 * type, an integer in a tiler, a tiler over capacity, an int that does not
 * fit in 64 bits) gives NotImplemented, and axe.cute takes its general path,
 * which raises the precise error. Nothing here prints, exits or aborts.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "axe/cute.h"

typedef struct axe_py_layout {
    PyObject ob_base; /* PyObject_HEAD */
    axe_cute_layout v;
    PyObject *shape;
    PyObject *stride;
    char packed;
    long gen;
} axe_py_layout;

static PyTypeObject axe_py_layout_type;
/* The registered subclass results are made of, and the error raiser. */
static PyTypeObject *axe_py_result_type;
static PyObject *axe_py_raise_error;

/* A new Layout of type "type" with _packed true and no Python tuples. */
static PyObject *axe_py_layout_new(PyTypeObject *type, PyObject *args,
                                   PyObject *kwds)
{
    (void)args;
    (void)kwds;
    axe_py_layout *self = (axe_py_layout *)type->tp_alloc(type, 0);
    if (self)
        self->packed = 1;
    return (PyObject *)self;
}

static void axe_py_layout_dealloc(PyObject *obj)
{
    axe_py_layout *self = (axe_py_layout *)obj;
    Py_CLEAR(self->shape);
    Py_CLEAR(self->stride);
    Py_TYPE(obj)->tp_free(obj);
}

/* The buffer is the packed axe_cute_layout, writable (for from_buffer). */
static int axe_py_layout_getbuffer(PyObject *obj, Py_buffer *view, int flags)
{
    axe_py_layout *self = (axe_py_layout *)obj;
    return PyBuffer_FillInfo(view, obj, &self->v, sizeof self->v, 0, flags);
}

static PyBufferProcs axe_py_layout_buffer = {
    .bf_getbuffer = axe_py_layout_getbuffer,
};

static PyMemberDef axe_py_layout_members[] = {
    {"_shape", T_OBJECT, offsetof(axe_py_layout, shape), 0,
     "the Python shape, or None until decoded"},
    {"_stride", T_OBJECT, offsetof(axe_py_layout, stride), 0,
     "the Python stride, or None until decoded"},
    {"_packed", T_BOOL, offsetof(axe_py_layout, packed), 0,
     "whether the packed value denotes _shape:_stride"},
    {"_gen", T_LONG, offsetof(axe_py_layout, gen), 0,
     "bumped by every change of shape or stride"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject axe_py_layout_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "axe._fast.Layout",
    .tp_basicsize = sizeof(axe_py_layout),
    .tp_dealloc = axe_py_layout_dealloc,
    .tp_as_buffer = &axe_py_layout_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A CuTe layout packed for libaxe (base of axe.cute.Layout).",
    .tp_members = axe_py_layout_members,
    .tp_new = axe_py_layout_new,
};

/* The packed value of "obj" if it is a Layout (packed first when not
 * current); NULL with no exception if it is not one, NULL with the
 * exception if packing failed. */
static const axe_cute_layout *axe_py_operand(PyObject *obj)
{
    if (!PyObject_TypeCheck(obj, &axe_py_layout_type))
        return NULL;
    axe_py_layout *l = (axe_py_layout *)obj;
    if (!l->packed) {
        PyObject *r = PyObject_CallMethod(obj, "_pack", NULL);
        if (!r)
            return NULL;
        Py_DECREF(r);
        if (!l->packed) {
            PyErr_SetString(PyExc_RuntimeError, "_pack left the layout "
                                                "unpacked");
            return NULL;
        }
    }
    return &l->v;
}

/* NotImplemented if no exception is set (the operand is not handled here),
 * else NULL to propagate the exception. */
static PyObject *axe_py_unhandled(void)
{
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NOTIMPLEMENTED;
}

/* A fresh result object, or NULL with the exception. */
static axe_py_layout *axe_py_result(void)
{
    if (!axe_py_result_type) {
        PyErr_SetString(PyExc_RuntimeError, "axe._fast.setup was not "
                                            "called");
        return NULL;
    }
    PyTypeObject *t = axe_py_result_type;
    return (axe_py_layout *)axe_py_layout_new(t, NULL, NULL);
}

/* Raise the AxeError of status "st" with "reason" and "offset"; NULL. */
static PyObject *axe_py_fail(int st, const char *reason, long offset)
{
    PyObject *r =
        PyObject_CallFunction(axe_py_raise_error, "isl", st, reason, offset);
    Py_XDECREF(r);
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_RuntimeError, "axe: error raiser returned");
    return NULL;
}

/* The result of a call that returned "st" into "out": "out" on success,
 * else NULL with the AxeError of "diag" (or of "what" without one). */
static PyObject *axe_py_finish(axe_py_layout *out, int st, const axe_diag *diag,
                               const char *what)
{
    if (st == AXE_OK)
        return (PyObject *)out;
    Py_DECREF(out);
    if (diag && diag->message[0])
        return axe_py_fail(st, diag->message, diag->offset);
    return axe_py_fail(st, what, -1L);
}

/* Return the result of fn(args..., &out->v, diag): called without a
 * diagnostic, and once more with one only if it fails (every library call
 * is pure, so the repeat gives the same status). */
#define AXE_PY_RUN(out, fn, ...)                                               \
    do {                                                                       \
        axe_status st_ = fn(__VA_ARGS__, &(out)->v, NULL);                     \
        axe_diag diag_ = {.offset = -1};                                       \
        if (st_ != AXE_OK)                                                     \
            st_ = fn(__VA_ARGS__, &(out)->v, &diag_);                          \
        return axe_py_finish(out, st_, &diag_, "no result");                   \
    } while (0)

typedef axe_status (*axe_py_unary_fn)(const axe_cute_layout *,
                                      axe_cute_layout *);
typedef axe_status (*axe_py_unary_diag_fn)(const axe_cute_layout *,
                                           axe_cute_layout *, axe_diag *);

/* fn(arg) for an operation without a diagnostic; "what" is its reason. */
static PyObject *axe_py_unary(PyObject *arg, axe_py_unary_fn fn,
                              const char *what)
{
    const axe_cute_layout *a = axe_py_operand(arg);
    if (!a)
        return axe_py_unhandled();
    axe_py_layout *out = axe_py_result();
    if (!out)
        return NULL;
    return axe_py_finish(out, fn(a, &out->v), NULL, what);
}

/* fn(arg) for an operation with a diagnostic (asked for on failure). */
static PyObject *axe_py_unary_diag(PyObject *arg, axe_py_unary_diag_fn fn)
{
    const axe_cute_layout *a = axe_py_operand(arg);
    if (!a)
        return axe_py_unhandled();
    axe_py_layout *out = axe_py_result();
    if (!out)
        return NULL;
    AXE_PY_RUN(out, fn, a);
}

/* coalesce(layout): the same function with depth <= 1, fewest modes. */
static PyObject *axe_py_coalesce(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return axe_py_unary(arg, axe_cute_coalesce,
                        "the layout does not "
                        "coalesce");
}

/* filter(layout): size-1 and stride-0 modes dropped, then coalesced. */
static PyObject *axe_py_filter(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return axe_py_unary(arg, axe_cute_filter, "no result");
}

/* right_inverse(layout): R with layout(R(k)) == k for k < size(R). */
static PyObject *axe_py_right_inverse(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return axe_py_unary_diag(arg, axe_cute_right_inverse);
}

/* left_inverse(layout): R with R(layout(k)) == k for k < size(layout). */
static PyObject *axe_py_left_inverse(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return axe_py_unary_diag(arg, axe_cute_left_inverse);
}

/* compose(a, b): R(i) == a(b(i)) for i < size(b). */
static PyObject *axe_py_compose(PyObject *mod, PyObject *const *args,
                                Py_ssize_t nargs)
{
    (void)mod;
    if (nargs != 2)
        return PyErr_Format(PyExc_TypeError, "compose takes 2 arguments");
    const axe_cute_layout *a = axe_py_operand(args[0]);
    const axe_cute_layout *b = a ? axe_py_operand(args[1]) : NULL;
    if (!b)
        return axe_py_unhandled();
    axe_py_layout *out = axe_py_result();
    if (!out)
        return NULL;
    AXE_PY_RUN(out, axe_cute_compose, a, b);
}

/* complement(a, max_idx) for an int max_idx within int64. */
static PyObject *axe_py_complement(PyObject *mod, PyObject *const *args,
                                   Py_ssize_t nargs)
{
    (void)mod;
    if (nargs != 2)
        return PyErr_Format(PyExc_TypeError, "complement takes 2 "
                                             "arguments");
    if (!PyLong_CheckExact(args[1]))
        Py_RETURN_NOTIMPLEMENTED;
    int over = 0;
    long long n = PyLong_AsLongLongAndOverflow(args[1], &over);
    if (over || (n == -1 && PyErr_Occurred()))
        return axe_py_unhandled();
    const axe_cute_layout *a = axe_py_operand(args[0]);
    if (!a)
        return axe_py_unhandled();
    axe_py_layout *out = axe_py_result();
    if (!out)
        return NULL;
    AXE_PY_RUN(out, axe_cute_complement, a, (int64_t)n);
}

/* Append "c" to the tokens of "t"; 0, or 1 when they are full. */
static int axe_py_tiler_tok(axe_cute_tiler *t, char c)
{
    if (t->ntok >= AXE_CUTE_TILER_MAX_TOKENS)
        return 1;
    t->tok[t->ntok++] = c;
    return 0;
}

/* Pack tiler element "e" (a tuple, None or a Layout) into "t": 0, 1 when
 * this module does not handle it, -1 with an exception. */
static int axe_py_tiler_walk(PyObject *e, axe_cute_tiler *t)
{
    if (e == Py_None)
        return axe_py_tiler_tok(t, '_');
    if (PyTuple_Check(e)) {
        if (axe_py_tiler_tok(t, '['))
            return 1;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(e); i++) {
            int r = axe_py_tiler_walk(PyTuple_GET_ITEM(e, i), t);
            if (r)
                return r;
        }
        return axe_py_tiler_tok(t, ']');
    }
    const axe_cute_layout *l = axe_py_operand(e);
    if (!l)
        return PyErr_Occurred() ? -1 : 1;
    if (t->nelem >= AXE_CUTE_TILER_MAX || axe_py_tiler_tok(t, 'L'))
        return 1;
    t->elem[t->nelem++] = *l;
    return 0;
}

/* The kind (0 .. max) of a call "name"(kind, a, b) with "nargs"
 * arguments, or -1 with an exception. */
static int axe_py_kind(PyObject *const *args, Py_ssize_t nargs, long max,
                       const char *name)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s takes 3 arguments", name);
        return -1;
    }
    long k = PyLong_AsLong(args[0]);
    if (k == -1 && PyErr_Occurred())
        return -1;
    if (k < 0 || k > max) {
        PyErr_SetString(PyExc_ValueError, "axe._fast: unknown kind");
        return -1;
    }
    return (int)k;
}

/* a / tiler by mode into "out": the tiler a tuple of layouts, None and
 * nested tuples; 0, 1 when this module does not handle it, -1 with an
 * exception. */
static int axe_py_divide_tiler(int kind, const axe_cute_layout *a,
                               PyObject *tup, axe_cute_layout *out)
{
    axe_cute_tiler tiler;
    tiler.ntok = tiler.nelem = 0;
    int r = axe_py_tiler_walk(tup, &tiler);
    if (r)
        return r;
    axe_status st = axe_cute_divide(kind, a, &tiler, out, NULL);
    if (st != AXE_OK) {
        axe_diag diag = {.offset = -1};
        st = axe_cute_divide(kind, a, &tiler, out, &diag);
        axe_py_fail(st, diag.message, diag.offset);
        return -1;
    }
    return 0;
}

/* divide(kind, a, b): a / b for a tiler b (a tuple, see above) or a
 * layout b (its tiler of one layout); kind as axe_cute_divide_kind. */
static PyObject *axe_py_divide(PyObject *mod, PyObject *const *args,
                               Py_ssize_t nargs)
{
    (void)mod;
    int kind = axe_py_kind(args, nargs, AXE_CUTE_DIVIDE_FLAT, "divide");
    if (kind < 0)
        return NULL;
    const axe_cute_layout *a = axe_py_operand(args[1]);
    const axe_cute_layout *b = NULL;
    if (!a || (!PyTuple_Check(args[2]) && !(b = axe_py_operand(args[2]))))
        return axe_py_unhandled();
    axe_py_layout *out = axe_py_result();
    if (!out)
        return NULL;
    if (!b) {
        int r = axe_py_divide_tiler(kind, a, args[2], &out->v);
        if (r == 0)
            return (PyObject *)out;
        Py_DECREF(out);
        return r < 0 ? NULL : axe_py_unhandled();
    }
    AXE_PY_RUN(out, axe_cute_divide_layout, kind, a, b);
}

/* Split mode "i" of "a" by "b": (tile, rest) = logical_product(a_i, b)
 * appended to "m" as two modes ("m" is set to the first pair when i == 0). */
static axe_status axe_py_split(const axe_cute_layout *a, int i,
                               const axe_cute_layout *b, axe_cute_layout *m)
{
    axe_cute_layout ai, s, t, r, x;
    axe_status st = axe_cute_get(a, i, &ai);
    if (st == AXE_OK)
        st = axe_cute_product(AXE_CUTE_PRODUCT_LOGICAL, &ai, b, i == 0 ? m : &s,
                              NULL);
    if (st != AXE_OK || i == 0)
        return st;
    if ((st = axe_cute_get(&s, 0, &t)) != AXE_OK ||
        (st = axe_cute_get(&s, 1, &r)) != AXE_OK ||
        (st = axe_cute_append(m, &t, &x)) != AXE_OK)
        return st;
    return axe_cute_append(&x, &r, m);
}

/* zipped (or tiled) product of "a" by the flat tuple "tup" of n >= 2
 * layouts: M = (t_0, r_0, ..., t_n-1, r_n-1, a_n, ...) with (t_i, r_i) =
 * logical_product(a_i, b_i), then its modes reordered to (t..., r...,
 * a_n...) and grouped as ((t...), (r..., a_n...)) or ((t...), r...,
 * a_n...): axe.cute's _unzip_product. 0, or 1 when not handled here (any
 * failure: the general path raises the precise error), -1 with an
 * exception. */
static int axe_py_unzip_product(int kind, const axe_cute_layout *a,
                                PyObject *tup, axe_cute_layout *out)
{
    Py_ssize_t n = PyTuple_GET_SIZE(tup);
    int rank = axe_cute_rank(a), idx[AXE_CUTE_MAX_LEAVES], k = 0;
    axe_cute_layout m, x, y;
    if (n < 2 || n > rank || 2 * n + (rank - n) > AXE_CUTE_MAX_LEAVES)
        return 1;
    for (int i = 0; i < (int)n; i++) {
        const axe_cute_layout *b = axe_py_operand(PyTuple_GET_ITEM(tup, i));
        if (!b)
            return PyErr_Occurred() ? -1 : 1;
        if (axe_py_split(a, i, b, &m) != AXE_OK)
            return 1;
    }
    for (int i = (int)n; i < rank; i++)
        if (axe_cute_get(a, i, &x) != AXE_OK ||
            axe_cute_append(&m, &x, &y) != AXE_OK)
            return 1;
        else
            m = y;
    for (int i = 0; i < (int)n; i++)
        idx[k++] = 2 * i;
    for (int i = 0; i < (int)n; i++)
        idx[k++] = 2 * i + 1;
    for (int i = (int)n; i < rank; i++)
        idx[k++] = (int)n + i;
    if (axe_cute_select(&m, idx, k, &x) != AXE_OK ||
        axe_cute_group(&x, 0, (int)n, &y) != AXE_OK)
        return 1;
    if (kind == AXE_CUTE_PRODUCT_TILED) {
        *out = y;
        return 0;
    }
    return axe_cute_group(&y, 1, axe_cute_rank(&y), out) != AXE_OK;
}

/* product(kind, a, b) for layouts a, b, or for zipped/tiled a flat tuple
 * b of at least two layouts; kind as axe_cute_product_kind. */
static PyObject *axe_py_product(PyObject *mod, PyObject *const *args,
                                Py_ssize_t nargs)
{
    (void)mod;
    int kind = axe_py_kind(args, nargs, AXE_CUTE_PRODUCT_RAKED, "product");
    if (kind < 0)
        return NULL;
    const axe_cute_layout *a = axe_py_operand(args[1]);
    if (a && PyTuple_Check(args[2]) &&
        (kind == AXE_CUTE_PRODUCT_ZIPPED || kind == AXE_CUTE_PRODUCT_TILED)) {
        axe_py_layout *out = axe_py_result();
        if (!out)
            return NULL;
        int r = axe_py_unzip_product(kind, a, args[2], &out->v);
        if (r == 0)
            return (PyObject *)out;
        Py_DECREF(out);
        return r < 0 ? NULL : axe_py_unhandled();
    }
    const axe_cute_layout *b = a ? axe_py_operand(args[2]) : NULL;
    if (!b)
        return axe_py_unhandled();
    axe_py_layout *out = axe_py_result();
    if (!out)
        return NULL;
    AXE_PY_RUN(out, axe_cute_product, kind, a, b);
}

/* setup(result_type, raise_error, struct_size): register the subclass of
 * Layout results are made of and the callable that raises AxeError;
 * struct_size is ctypes' size of CuteLayout, checked against the C one. */
static PyObject *axe_py_setup(PyObject *mod, PyObject *const *args,
                              Py_ssize_t nargs)
{
    (void)mod;
    if (nargs != 3 || !PyType_Check(args[0]) ||
        !PyType_IsSubtype((PyTypeObject *)args[0], &axe_py_layout_type) ||
        !PyCallable_Check(args[1]) || !PyLong_Check(args[2]))
        return PyErr_Format(PyExc_TypeError, "setup(Layout subclass, "
                                             "raise_error, struct_size)");
    size_t size = PyLong_AsSize_t(args[2]);
    if (size != sizeof(axe_cute_layout))
        return PyErr_Format(PyExc_ImportError, "axe._fast: ctypes' "
                                               "CuteLayout does not match "
                                               "axe_cute_layout");
    Py_INCREF(args[0]);
    Py_INCREF(args[1]);
    Py_XSETREF(axe_py_result_type, (PyTypeObject *)args[0]);
    Py_XSETREF(axe_py_raise_error, args[1]);
    Py_RETURN_NONE;
}

#define AXE_PY_FAST(name, doc)                                                 \
    {                                                                          \
#name, (PyCFunction)(void (*)(void))axe_py_##name, METH_FASTCALL, doc  \
    }
#define AXE_PY_ONE(name, doc)                                                  \
    {                                                                          \
#name, axe_py_##name, METH_O, doc                                      \
    }

static PyMethodDef axe_py_methods[] = {
    AXE_PY_ONE(coalesce, "coalesce(a) (NotImplemented: not a Layout)"),
    AXE_PY_ONE(filter, "filter(a) (NotImplemented: not a Layout)"),
    AXE_PY_ONE(right_inverse, "right_inverse(a)"),
    AXE_PY_ONE(left_inverse, "left_inverse(a)"),
    AXE_PY_FAST(compose, "compose(a, b): a o b for layouts a, b"),
    AXE_PY_FAST(complement, "complement(a, max_idx) for an int max_idx"),
    AXE_PY_FAST(divide, "divide(kind, a, tiler or layout)"),
    AXE_PY_FAST(product, "product(kind, a, b) for layouts a, b (zipped, "
                         "tiled: b also a flat tuple of layouts)"),
    AXE_PY_FAST(setup, "setup(result_type, raise_error, struct_size)"),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef axe_py_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "axe._fast",
    .m_doc = "The hot CuTe operations of axe.cute, over libaxe.",
    .m_size = -1,
    .m_methods = axe_py_methods,
};

PyMODINIT_FUNC PyInit__fast(void)
{
    if (PyType_Ready(&axe_py_layout_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&axe_py_module);
    if (!m)
        return NULL;
    Py_INCREF(&axe_py_layout_type);
    if (PyModule_AddObject(m, "Layout", (PyObject *)&axe_py_layout_type) < 0) {
        Py_DECREF(&axe_py_layout_type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
