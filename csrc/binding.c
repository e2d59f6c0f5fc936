/*
 * binding.c - the Python module uvnest._core.
 *
 * The only file that includes Python.h or the numpy headers.  It converts
 * and validates arguments (naming the offending one in every error), runs
 * the pure-C work with the GIL released, and maps un_status codes to
 * Python exceptions.
 *
 * Why one file of about a thousand lines: it is one concept (the bridge
 * between Python objects and the C interface), each function converts the
 * arguments of one C call, and the project keeps Python.h to a single file
 * so that every other file builds and is tested as plain C99 (the C unit
 * tests link the library without Python).  What it holds is conversion
 * and error mapping only: the work is in the C files, and the checks on
 * plain C arrays that the C functions can make themselves (face indices,
 * offsets, coordinate ranges) are made there.
 *
 * It calls the public interface (uvnest.h) and the parallel search
 * (chains.h: un_chains_*, the un_packer_* calls run on several threads),
 * which is internal: the C library's own callers use un_packer_* and the
 * chains are the binding's way to use every core.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define PY_ARRAY_UNIQUE_SYMBOL uvnest_ARRAY_API
#include <numpy/arrayobject.h>

#include "uvnest.h"
#include "chains.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

/* Largest ring input accepted by the geometry functions: far beyond any UV
 * island, small enough that every algorithm finishes. */
#define MAX_RING_POINTS 2000000
/* Largest UV array of a mesh (faces index it with int32; each island's
 * outline only sees its own faces' points). */
#define MAX_MESH_POINTS ((npy_intp)1 << 30)
#define MAX_NFP_PAIRS   ((int64_t)1 << 26)

static PyObject *raise_status(un_status s, const char *what)
{
    switch (s) {
    case UN_OK: return NULL;
    case UN_ENOMEM: return PyErr_NoMemory();
    case UN_EINVAL: PyErr_Format(PyExc_ValueError, "%s: invalid input", what); break;
    case UN_ERANGE:
        PyErr_Format(PyExc_ValueError, "%s: coordinates or sizes outside the supported range", what);
        break;
    case UN_ECANCELLED: PyErr_Format(PyExc_KeyboardInterrupt, "%s: cancelled", what); break;
    case UN_ENOFIT: PyErr_Format(PyExc_ValueError, "%s: the islands cannot fit the target", what); break;
    case UN_EINTERNAL:
        PyErr_Format(PyExc_RuntimeError,
                     "%s: internal consistency check failed (please report this input)", what);
        break;
    }
    return NULL;
}

/* ------------------------------------------------------------ conversion */

/* A (n, 2) float64 array of at most max_points rows from any object; NULL
 * with an exception naming `name` otherwise. */
static PyArrayObject *as_points(PyObject *o, const char *name, int allow_empty, int finite, npy_intp max_points)
{
    PyArrayObject *a;
    npy_intp n, i;
    const double *p;
    if (PyArray_Check(o) && (!PyArray_ISNUMBER((PyArrayObject *)o) || PyArray_ISCOMPLEX((PyArrayObject *)o))) {
        PyErr_Format(PyExc_ValueError, "%s must be numeric, not dtype %R", name,
                     (PyObject *)PyArray_DESCR((PyArrayObject *)o));
        return NULL;
    }
    a = (PyArrayObject *)PyArray_FROMANY(o, NPY_DOUBLE, 0, 0, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    if (!a) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be an (n, 2) array of numbers", name);
        return NULL;
    }
    if (PyArray_NDIM(a) != 2 || PyArray_DIM(a, 1) != 2) {
        PyErr_Format(PyExc_ValueError, "%s must have shape (n, 2), got %d dimension(s)%s", name,
                     PyArray_NDIM(a), PyArray_NDIM(a) == 2 ? " with a second size other than 2" : "");
        Py_DECREF(a);
        return NULL;
    }
    n = PyArray_DIM(a, 0);
    if (n > max_points) {
        PyErr_Format(PyExc_ValueError, "%s has %zd points; at most %zd are supported", name,
                     (Py_ssize_t)n, (Py_ssize_t)max_points);
        Py_DECREF(a);
        return NULL;
    }
    if (!allow_empty && n < 3) {
        PyErr_Format(PyExc_ValueError, "%s has %zd point(s); a ring needs at least 3", name, (Py_ssize_t)n);
        Py_DECREF(a);
        return NULL;
    }
    p = (const double *)PyArray_DATA(a);
    for (i = 0; finite && i < 2 * n; i++) {
        if (!isfinite(p[i])) {
            PyErr_Format(PyExc_ValueError, "%s has a %s coordinate at point %zd", name,
                         isnan(p[i]) ? "NaN" : "infinite", (Py_ssize_t)(i / 2));
            Py_DECREF(a);
            return NULL;
        }
    }
    return a;
}

/* A sequence of rings -> un_frings (each ring at least min_points). */
static int to_frings_min(PyObject *seq, const char *name, un_frings *out, int min_points);

static int to_frings(PyObject *seq, const char *name, un_frings *out)
{
    return to_frings_min(seq, name, out, 3);
}

static int to_frings_min(PyObject *seq, const char *name, un_frings *out, int min_points)
{
    PyObject *fast;
    Py_ssize_t k, n;
    char label[160];
    int64_t total = 0;
    un_frings_init(out);
    if (PyArray_Check(seq) && PyArray_NDIM((PyArrayObject *)seq) == 2) {
        PyErr_Format(PyExc_ValueError, "%s must be a list of rings ((n, 2) arrays), not a single array", name);
        return -1;
    }
    fast = PySequence_Fast(seq, "");
    if (!fast) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be a list of rings ((n, 2) arrays)", name);
        return -1;
    }
    n = PySequence_Fast_GET_SIZE(fast);
    if (n == 0) {
        PyErr_Format(PyExc_ValueError, "%s has no rings", name);
        Py_DECREF(fast);
        return -1;
    }
    for (k = 0; k < n; k++) {
        PyArrayObject *a;
        un_status s;
        snprintf(label, sizeof label, "%s ring %zd", name, (Py_ssize_t)k);
        a = as_points(PySequence_Fast_GET_ITEM(fast, k), label, 1, 1, MAX_RING_POINTS);
        if (!a) goto fail;
        if (PyArray_DIM(a, 0) < min_points) {
            PyErr_Format(PyExc_ValueError, "%s has %zd point(s); it needs at least %d", label,
                         (Py_ssize_t)PyArray_DIM(a, 0), min_points);
            Py_DECREF(a);
            goto fail;
        }
        total += PyArray_DIM(a, 0);
        if (total > MAX_RING_POINTS) {
            PyErr_Format(PyExc_ValueError, "%s has more than %d points in all", name, MAX_RING_POINTS);
            Py_DECREF(a);
            goto fail;
        }
        s = un_frings_add(out, (const double *)PyArray_DATA(a), (int32_t)PyArray_DIM(a, 0));
        Py_DECREF(a);
        if (s != UN_OK) { raise_status(s, name); goto fail; }
    }
    Py_DECREF(fast);
    return 0;
fail:
    Py_DECREF(fast);
    un_frings_free(out);
    return -1;
}

static void free_frings_list(un_frings *polys, Py_ssize_t n)
{
    Py_ssize_t k;
    for (k = 0; polys && k < n; k++) un_frings_free(polys + k);
    free(polys);
}

/* The polygons of list `seq` (each a list of rings) as *n ring sets in a
 * new array (free_frings_list frees it); item k is "polygon k" in errors,
 * and with allow_empty an empty item stays an empty set.  NULL with an
 * exception set. */
static un_frings *to_frings_list(PyObject *seq, int allow_empty, Py_ssize_t *n)
{
    PyObject *fast = PySequence_Fast(seq, "polygons must be a list");
    un_frings *polys;
    Py_ssize_t k, m;
    *n = 0;
    if (!fast) return NULL;
    m = PySequence_Fast_GET_SIZE(fast);
    if (!(polys = (un_frings *)calloc((size_t)m + 1, sizeof *polys))) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    for (k = 0; k < m; k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, k);
        char label[64];
        if (allow_empty && PySequence_Check(item) && PySequence_Size(item) == 0) continue; /* empty: alone */
        snprintf(label, sizeof label, "polygon %zd", (Py_ssize_t)k);
        if (to_frings(item, label, polys + k) < 0) {
            free_frings_list(polys, m);
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    *n = m;
    return polys;
}

static PyObject *rings_to_list(const un_frings *r, int32_t first, int32_t last)
{
    PyObject *lst = PyList_New(last - first);
    int32_t k;
    if (!lst) return NULL;
    for (k = first; k < last; k++) {
        npy_intp dims[2];
        PyObject *a;
        dims[0] = r->start[k + 1] - r->start[k];
        dims[1] = 2;
        a = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
        if (!a) { Py_DECREF(lst); return NULL; }
        if (dims[0]) memcpy(PyArray_DATA((PyArrayObject *)a), r->xy + 2 * r->start[k], (size_t)dims[0] * 2 * sizeof(double));
        PyList_SET_ITEM(lst, k - first, a);
    }
    return lst;
}

static PyObject *regions_to_list(const un_fregions *g)
{
    PyObject *lst = PyList_New(g->nregions);
    int32_t k;
    if (!lst) return NULL;
    for (k = 0; k < g->nregions; k++) {
        PyObject *r = rings_to_list(&g->rings, g->region_start[k], g->region_start[k + 1]);
        if (!r) { Py_DECREF(lst); return NULL; }
        PyList_SET_ITEM(lst, k, r);
    }
    return lst;
}

/* ------------------------------------------------------------ Workspace */

/* A un_workspace owned by a Python object, for geometry calls that pass it
 * (uvnest.geometry.Workspace).  busy guards it: one call at a time. */
typedef struct {
    PyObject_HEAD
    un_workspace *ws;
    int           busy;   /* a call is using it with the GIL released */
} WorkspaceObject;

static void workspace_dealloc(WorkspaceObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    un_workspace_free(self->ws);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp); /* instances of heap types own a reference to their type */
}

static int workspace_init(WorkspaceObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, ":Workspace", kwlist)) return -1;
    if (!self->ws && !(self->ws = un_workspace_new())) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

#define WORKSPACE_DOC \
    "Workspace()\n--\n\n" \
    "Reusable scratch memory for :func:`nfp`, :func:`ifp`, :func:`cfr` and\n" \
    ":func:`cfr_from_nfps`.\n" \
    "\n" \
    "Each of those calls builds an exact arrangement whose arrays take a few\n" \
    "megabytes for a few hundred islands.  Passed as ``workspace=``, one\n" \
    "``Workspace`` keeps that memory allocated between calls, so a script that\n" \
    "makes many calls does not pay for allocating it and faulting it in each\n" \
    "time (about a fifth of ``cfr_from_nfps`` against 200 islands).  Results\n" \
    "are the same with or without it.  A workspace serves one call at a time:\n" \
    "a second call using it while the first runs (from another thread) raises\n" \
    "``RuntimeError``; give each thread its own.  Its memory is freed with it.\n"

static PyType_Slot workspace_slots[] = {
    {Py_tp_dealloc, (void *)workspace_dealloc},
    {Py_tp_doc, (void *)WORKSPACE_DOC},
    {Py_tp_init, (void *)workspace_init},
    {Py_tp_new, (void *)PyType_GenericNew},
    {0, NULL}
};

static PyType_Spec workspace_spec = {
    "uvnest._core.Workspace", sizeof(WorkspaceObject), 0, Py_TPFLAGS_DEFAULT, workspace_slots
};

/* Take the optional workspace argument wso of a module function (NULL or
 * None: none) for one call: *wo receives the object to hand back to
 * workspace_release and *ws its C workspace (both NULL for none).  -1 with
 * an exception set when wso is not a usable Workspace. */
static int workspace_acquire(PyObject *module, PyObject *wso, WorkspaceObject **wo, un_workspace **ws)
{
    PyObject *type;
    WorkspaceObject *w;
    int ok;
    *wo = NULL;
    *ws = NULL;
    if (!wso || wso == Py_None) return 0;
    if (!(type = PyObject_GetAttrString(module, "Workspace"))) return -1;
    ok = PyObject_TypeCheck(wso, (PyTypeObject *)type);
    Py_DECREF(type);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "workspace must be a uvnest.geometry.Workspace or None, got %s",
                     Py_TYPE(wso)->tp_name);
        return -1;
    }
    w = (WorkspaceObject *)wso;
    if (!w->ws) {
        PyErr_SetString(PyExc_ValueError, "workspace was not initialised");
        return -1;
    }
    if (w->busy) {
        PyErr_SetString(PyExc_RuntimeError, "workspace is in use by another call; give each thread its own");
        return -1;
    }
    w->busy = 1;
    Py_INCREF(w);
    *wo = w;
    *ws = w->ws;
    return 0;
}

static void workspace_release(WorkspaceObject *w)
{
    if (!w) return;
    w->busy = 0;
    Py_DECREF(w);
}

/* ------------------------------------------------------------- geometry */

static PyObject *py_outline(PyObject *self, PyObject *args)
{
    PyObject *uvo, *fso, *fio;
    PyArrayObject *uv = NULL, *fs = NULL, *fi = NULL;
    un_frings out;
    un_status s;
    PyObject *res = NULL;
    npy_intp nf, i;
    const int32_t *st;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO", &uvo, &fso, &fio)) return NULL;
    un_frings_init(&out);
    /* unused points may be anything: the C side checks the ones faces use */
    if (!(uv = as_points(uvo, "uvs", 1, 0, MAX_MESH_POINTS))) return NULL;
    fs = (PyArrayObject *)PyArray_FROMANY(fso, NPY_INT32, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    fi = (PyArrayObject *)PyArray_FROMANY(fio, NPY_INT32, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    if (!fs || !fi) {
        PyErr_SetString(PyExc_TypeError, "face_start and face_indices must be 1-D integer arrays");
        goto done;
    }
    nf = PyArray_DIM(fs, 0) - 1;
    st = (const int32_t *)PyArray_DATA(fs);
    if (nf < 0 || st[0] != 0 || st[nf] != PyArray_DIM(fi, 0)) {
        PyErr_SetString(PyExc_ValueError, "face_start must start at 0 and end at len(face_indices)");
        goto done;
    }
    for (i = 0; i < nf; i++) {
        if (st[i + 1] - st[i] < 3) {
            PyErr_Format(PyExc_ValueError, "face %zd has %d corner(s); a face needs at least 3",
                         (Py_ssize_t)i, (int)(st[i + 1] - st[i]));
            goto done;
        }
    }
    {
        const int32_t *ix = (const int32_t *)PyArray_DATA(fi);
        npy_intp m = PyArray_DIM(fi, 0), nuv = PyArray_DIM(uv, 0);
        for (i = 0; i < m; i++) {
            if (ix[i] < 0 || ix[i] >= nuv) {
                PyErr_Format(PyExc_IndexError, "face index %d out of range for %zd uvs", (int)ix[i], (Py_ssize_t)nuv);
                goto done;
            }
        }
    }
    Py_BEGIN_ALLOW_THREADS
    s = un_geom_outline((const double *)PyArray_DATA(uv), (int32_t)PyArray_DIM(uv, 0), st, (int32_t)nf,
                        (const int32_t *)PyArray_DATA(fi), &out);
    Py_END_ALLOW_THREADS
    if (s == UN_EINVAL) { PyErr_SetString(PyExc_ValueError, "outline: a face uses a NaN or infinite UV"); goto done; }
    if (s != UN_OK) { raise_status(s, "outline"); goto done; }
    res = rings_to_list(&out, 0, out.nrings);
done:
    Py_XDECREF(uv); Py_XDECREF(fs); Py_XDECREF(fi);
    un_frings_free(&out);
    return res;
}

static PyObject *py_outlines(PyObject *self, PyObject *args)
{
    PyObject *uvo, *fso, *fio, *fgo, *res = NULL;
    PyArrayObject *uv = NULL, *fs = NULL, *fi = NULL, *fg = NULL;
    Py_ssize_t ng;
    un_frings *out = NULL;
    PyArrayObject *solid = NULL;
    npy_intp dim;
    un_status s;
    npy_intp nf, g;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOn", &uvo, &fso, &fio, &fgo, &ng)) return NULL;
    if (ng < 0 || ng > INT32_MAX - 1) return PyErr_Format(PyExc_ValueError, "group count out of range");
    if (!(uv = as_points(uvo, "uvs", 1, 0, MAX_MESH_POINTS))) return NULL;
    fs = (PyArrayObject *)PyArray_FROMANY(fso, NPY_INT32, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    fi = (PyArrayObject *)PyArray_FROMANY(fio, NPY_INT32, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    fg = (PyArrayObject *)PyArray_FROMANY(fgo, NPY_INT32, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    if (!fs || !fi || !fg) goto done;
    nf = PyArray_DIM(fs, 0) - 1;
    if (nf < 0 || PyArray_DIM(fg, 0) != nf || ((const int32_t *)PyArray_DATA(fs))[nf] != PyArray_DIM(fi, 0)) {
        PyErr_SetString(PyExc_ValueError, "outlines: inconsistent face arrays");
        goto done;
    }
    if (!(out = (un_frings *)calloc((size_t)ng + 1, sizeof *out))) { PyErr_NoMemory(); goto done; }
    dim = ng;
    if (!(solid = (PyArrayObject *)PyArray_ZEROS(1, &dim, NPY_BOOL, 0))) goto done;
    Py_BEGIN_ALLOW_THREADS
    s = un_geom_outlines((const double *)PyArray_DATA(uv), (int32_t)PyArray_DIM(uv, 0),
                         (const int32_t *)PyArray_DATA(fs), (int32_t)nf, (const int32_t *)PyArray_DATA(fi),
                         (const int32_t *)PyArray_DATA(fg), (int32_t)ng, out, (int8_t *)PyArray_DATA(solid));
    Py_END_ALLOW_THREADS
    if (s != UN_OK) { raise_status(s, "outlines"); goto done; }
    if (!(res = PyList_New(ng))) goto done;
    for (g = 0; g < ng; g++) {
        PyObject *r = rings_to_list(out + g, 0, out[g].nrings);
        if (!r) { Py_CLEAR(res); goto done; }
        PyList_SET_ITEM(res, g, r);
    }
    res = Py_BuildValue("(NO)", res, solid);
done:
    for (g = 0; out && g < ng; g++) un_frings_free(out + g);
    free(out);
    Py_XDECREF(uv); Py_XDECREF(fs); Py_XDECREF(fi); Py_XDECREF(fg); Py_XDECREF(solid);
    return res;
}

static PyObject *py_overlap_groups(PyObject *self, PyObject *args)
{
    PyObject *lo, *lab = NULL;
    Py_ssize_t n;
    un_frings *polys;
    npy_intp dim;
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "O", &lo)) return NULL;
    if (!(polys = to_frings_list(lo, 1, &n))) return NULL;
    dim = (npy_intp)n;
    if (!(lab = PyArray_SimpleNew(1, &dim, NPY_INT32))) goto done;
    Py_BEGIN_ALLOW_THREADS
    s = un_overlap_groups(polys, (int32_t)n, (int32_t *)PyArray_DATA((PyArrayObject *)lab));
    Py_END_ALLOW_THREADS
    if (s != UN_OK) { Py_CLEAR(lab); raise_status(s, "overlap_groups"); }
done:
    free_frings_list(polys, n);
    return lab;
}

static PyObject *py_nfp(PyObject *self, PyObject *args)
{
    PyObject *ao, *bo, *wso = NULL, *res = NULL;
    WorkspaceObject *wo;
    un_workspace *ws;
    un_frings a, b, out;
    un_status s;
    if (!PyArg_ParseTuple(args, "OO|O", &ao, &bo, &wso)) return NULL;
    un_frings_init(&out);
    if (to_frings(ao, "a", &a) < 0) return NULL;
    if (to_frings(bo, "b", &b) < 0) { un_frings_free(&a); return NULL; }
    if ((int64_t)un_frings_npts(&a) * un_frings_npts(&b) > MAX_NFP_PAIRS) {
        PyErr_Format(PyExc_ValueError, "nfp: %d x %d vertices is too many; simplify the polygons first",
                     (int)un_frings_npts(&a), (int)un_frings_npts(&b));
        goto done;
    }
    if (workspace_acquire(self, wso, &wo, &ws) < 0) goto done;
    Py_BEGIN_ALLOW_THREADS
    s = un_geom_nfp(&a, &b, &out, ws);
    Py_END_ALLOW_THREADS
    workspace_release(wo);
    if (s != UN_OK) { raise_status(s, "nfp"); goto done; }
    res = rings_to_list(&out, 0, out.nrings);
done:
    un_frings_free(&a); un_frings_free(&b); un_frings_free(&out);
    return res;
}

static PyObject *py_simplify(PyObject *self, PyObject *args)
{
    PyObject *ro, *res = NULL, *lst;
    double tol, used = 0;
    int maxv;
    un_frings in, out;
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "Odi", &ro, &tol, &maxv)) return NULL;
    if (!(tol >= 0) || !isfinite(tol)) return PyErr_Format(PyExc_ValueError, "tolerance must be a finite number >= 0, got %R", PyTuple_GET_ITEM(args, 1));
    if (maxv < 4) return PyErr_Format(PyExc_ValueError, "max_vertices must be at least 4, got %d", maxv);
    if (to_frings(ro, "rings", &in) < 0) return NULL;
    un_frings_init(&out);
    Py_BEGIN_ALLOW_THREADS
    s = un_geom_simplify(&in, tol, maxv, &out, &used);
    Py_END_ALLOW_THREADS
    if (s != UN_OK) { raise_status(s, "simplify"); goto done; }
    if (!(lst = rings_to_list(&out, 0, out.nrings))) goto done;
    res = Py_BuildValue("(Nd)", lst, used);
done:
    un_frings_free(&in); un_frings_free(&out);
    return res;
}

static PyObject *py_hull(PyObject *self, PyObject *args)
{
    PyObject *ro, *res = NULL;
    un_frings in, out;
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "O", &ro)) return NULL;
    if (to_frings(ro, "rings", &in) < 0) return NULL;
    un_frings_init(&out);
    Py_BEGIN_ALLOW_THREADS
    s = un_geom_hull(&in, &out);
    Py_END_ALLOW_THREADS
    if (s != UN_OK) raise_status(s, "hull");
    else res = rings_to_list(&out, 0, out.nrings);
    un_frings_free(&in); un_frings_free(&out);
    return res;
}

static PyObject *py_ifp(PyObject *self, PyObject *args)
{
    PyObject *co, *po, *wso = NULL, *res = NULL;
    WorkspaceObject *wo;
    un_workspace *ws;
    un_frings c, p;
    un_fregions out;
    un_status s;
    if (!PyArg_ParseTuple(args, "OO|O", &co, &po, &wso)) return NULL;
    if (to_frings(co, "container", &c) < 0) return NULL;
    if (to_frings(po, "piece", &p) < 0) { un_frings_free(&c); return NULL; }
    memset(&out, 0, sizeof out);
    if (workspace_acquire(self, wso, &wo, &ws) < 0) goto done;
    Py_BEGIN_ALLOW_THREADS
    s = un_geom_ifp(&c, &p, &out, ws);
    Py_END_ALLOW_THREADS
    workspace_release(wo);
    if (s != UN_OK) raise_status(s, "ifp");
    else res = regions_to_list(&out);
done:
    un_frings_free(&c); un_frings_free(&p); un_fregions_free(&out);
    return res;
}

/* cfr from placed polygons (nfps_given = 0: margin follows in args) or
 * from no-fit polygons computed before (1). */
static PyObject *cfr_common(PyObject *module, PyObject *args, int nfps_given)
{
    PyObject *co, *plo, *po, *wso = NULL, *res = NULL, *fast = NULL;
    WorkspaceObject *wo;
    un_workspace *ws;
    un_frings c, p, *polys = NULL;
    un_fregions out;
    double margin = 0;
    const char *what = nfps_given ? "nfps" : "placed";
    Py_ssize_t n = 0, k;
    un_status s;
    if (nfps_given ? !PyArg_ParseTuple(args, "OOO|O", &co, &plo, &po, &wso)
                   : !PyArg_ParseTuple(args, "OOOd|O", &co, &plo, &po, &margin, &wso))
        return NULL;
    if (!(margin >= 0) || !isfinite(margin)) return PyErr_Format(PyExc_ValueError, "margin must be a finite number >= 0");
    if (!(fast = PySequence_Fast(plo, nfps_given ? "nfps must be a list of polygons (lists of rings)"
                                                 : "placed must be a list of polygons (lists of rings)")))
        return NULL;
    n = PySequence_Fast_GET_SIZE(fast);
    memset(&out, 0, sizeof out);
    un_frings_init(&c); un_frings_init(&p);
    polys = (un_frings *)calloc((size_t)n + 1, sizeof *polys);
    if (!polys) { PyErr_NoMemory(); goto done; }
    if (to_frings(co, "container", &c) < 0 || to_frings(po, "piece", &p) < 0) goto done;
    for (k = 0; k < n; k++) {
        char label[64];
        snprintf(label, sizeof label, "%s[%zd]", what, (Py_ssize_t)k);
        if (to_frings(PySequence_Fast_GET_ITEM(fast, k), label, polys + k) < 0) goto done;
    }
    if (workspace_acquire(module, wso, &wo, &ws) < 0) goto done;
    Py_BEGIN_ALLOW_THREADS
    s = nfps_given ? un_geom_cfr_nfps(&c, polys, (int32_t)n, &p, &out, ws)
                   : un_geom_cfr(&c, polys, (int32_t)n, &p, margin, &out, ws);
    Py_END_ALLOW_THREADS
    workspace_release(wo);
    if (s != UN_OK) raise_status(s, nfps_given ? "cfr_from_nfps" : "cfr");
    else res = regions_to_list(&out);
done:
    for (k = 0; polys && k < n; k++) un_frings_free(polys + k);
    free(polys);
    Py_XDECREF(fast);
    un_frings_free(&c); un_frings_free(&p); un_fregions_free(&out);
    return res;
}

static PyObject *py_cfr(PyObject *self, PyObject *args)
{
    return cfr_common(self, args, 0);
}

static PyObject *py_cfr_from_nfps(PyObject *self, PyObject *args)
{
    return cfr_common(self, args, 1);
}

static PyObject *py_point_at(PyObject *self, PyObject *args)
{
    PyObject *ro;
    double r, pt[2];
    un_fregions g;
    int32_t st[2];
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "Od", &ro, &r)) return NULL;
    if (!(r >= 0 && r < 1)) return PyErr_Format(PyExc_ValueError, "r must be in [0, 1), got %R", PyTuple_GET_ITEM(args, 1));
    memset(&g, 0, sizeof g);
    /* regions may be degenerate: a segment traced there and back, a point */
    if (to_frings_min(ro, "region", &g.rings, 1) < 0) return NULL;
    st[0] = 0;
    st[1] = g.rings.nrings;
    g.region_start = st;
    g.nregions = 1;
    s = un_region_point_at(&g, 0, r, pt);
    un_frings_free(&g.rings);
    if (s != UN_OK) return raise_status(s, "point_at");
    return Py_BuildValue("(dd)", pt[0], pt[1]);
}

static PyObject *py_overlaps(PyObject *self, PyObject *args)
{
    PyObject *ao, *bo;
    double margin, dist = 0;
    int ov = 0;
    un_frings a, b;
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOd", &ao, &bo, &margin)) return NULL;
    if (!(margin >= 0) || !isfinite(margin)) return PyErr_Format(PyExc_ValueError, "margin must be a finite number >= 0");
    if (to_frings(ao, "a", &a) < 0) return NULL;
    if (to_frings(bo, "b", &b) < 0) { un_frings_free(&a); return NULL; }
    if ((int64_t)un_frings_npts(&a) * un_frings_npts(&b) > MAX_NFP_PAIRS) {
        un_frings_free(&a); un_frings_free(&b);
        return PyErr_Format(PyExc_ValueError, "overlaps: too many vertices; simplify the polygons first");
    }
    Py_BEGIN_ALLOW_THREADS
    s = un_geom_overlaps(&a, &b, margin, &ov, &dist);
    Py_END_ALLOW_THREADS
    un_frings_free(&a); un_frings_free(&b);
    if (s != UN_OK) return raise_status(s, "overlaps");
    return Py_BuildValue("(Od)", ov ? Py_True : Py_False, dist);
}

static PyObject *py_components(PyObject *self, PyObject *args)
{
    Py_ssize_t n;
    PyObject *ao, *bo, *lab = NULL;
    PyArrayObject *a = NULL, *b = NULL;
    int32_t nc = 0;
    npy_intp dim;
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "nOO", &n, &ao, &bo)) return NULL;
    if (n < 0 || n > INT32_MAX - 1) return PyErr_Format(PyExc_ValueError, "node count out of range");
    a = (PyArrayObject *)PyArray_FROMANY(ao, NPY_INT32, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    b = (PyArrayObject *)PyArray_FROMANY(bo, NPY_INT32, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    if (!a || !b || PyArray_DIM(a, 0) != PyArray_DIM(b, 0)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "pairs must be two 1-D arrays of equal length");
        goto done;
    }
    dim = (npy_intp)n;
    if (!(lab = PyArray_SimpleNew(1, &dim, NPY_INT32))) goto done;
    Py_BEGIN_ALLOW_THREADS
    s = un_components((int32_t)n, (const int32_t *)PyArray_DATA(a), (const int32_t *)PyArray_DATA(b),
                      (int64_t)PyArray_DIM(a, 0), (int32_t *)PyArray_DATA((PyArrayObject *)lab), &nc);
    Py_END_ALLOW_THREADS
    if (s != UN_OK) {
        Py_CLEAR(lab);
        if (s == UN_EINVAL) PyErr_SetString(PyExc_IndexError, "pair index out of range");
        else raise_status(s, "components");
    }
done:
    Py_XDECREF(a); Py_XDECREF(b);
    if (!lab) return NULL;
    return Py_BuildValue("(Ni)", lab, (int)nc);
}

static PyObject *py_pack_pow2(PyObject *self, PyObject *args)
{
    PyObject *so, *res = NULL;
    PyArrayObject *sz = NULL;
    long long layer;
    int32_t nl = 0;
    npy_intp dims[2];
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "OL", &so, &layer)) return NULL;
    sz = (PyArrayObject *)PyArray_FROMANY(so, NPY_INT64, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    if (!sz) return NULL;
    if (PyArray_DIM(sz, 0) > INT32_MAX - 1) { Py_DECREF(sz); return PyErr_Format(PyExc_ValueError, "too many sizes"); }
    dims[0] = PyArray_DIM(sz, 0);
    dims[1] = 3;
    if (!(res = PyArray_SimpleNew(2, dims, NPY_INT64))) { Py_DECREF(sz); return NULL; }
    Py_BEGIN_ALLOW_THREADS
    s = un_pack_pow2((const int64_t *)PyArray_DATA(sz), (int32_t)dims[0], (int64_t)layer,
                     (int64_t *)PyArray_DATA((PyArrayObject *)res), &nl);
    Py_END_ALLOW_THREADS
    Py_DECREF(sz);
    if (s == UN_EINVAL) {
        Py_DECREF(res);
        return PyErr_Format(PyExc_ValueError,
                            "pack_pow2_squares: every size and the layer size must be a power of two, "
                            "no size larger than the layer");
    }
    if (s != UN_OK) { Py_DECREF(res); return raise_status(s, "pack_pow2_squares"); }
    return Py_BuildValue("(Ni)", res, (int)nl);
}

static PyObject *py_validate(PyObject *self, PyObject *args)
{
    PyObject *lo, *res = NULL;
    Py_ssize_t n;
    int nfixed;
    double margin, box[4];
    un_frings *polys;
    int32_t a = -1, b = -1;
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "Oid(dddd)", &lo, &nfixed, &margin, box, box + 1, box + 2, box + 3)) return NULL;
    if (!(polys = to_frings_list(lo, 0, &n))) return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = un_validate_layout(polys, (int32_t)n, nfixed, margin, box, &a, &b);
    Py_END_ALLOW_THREADS
    if (s != UN_OK) raise_status(s, "validate");
    else res = Py_BuildValue("(ii)", (int)a, (int)b);
    free_frings_list(polys, n);
    return res;
}

/* A 1-D int32 array of n + 1 offsets from 0 to `end`, never decreasing. */
static PyArrayObject *as_offsets(PyObject *o, const char *name, npy_intp n, npy_intp end)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(o, NPY_INT32, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    const int32_t *v;
    npy_intp i;
    if (!a) return NULL;
    v = (const int32_t *)PyArray_DATA(a);
    if (PyArray_DIM(a, 0) != n + 1 || v[0] != 0 || v[n] != end) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd offsets from 0 to %zd", name, (Py_ssize_t)(n + 1),
                     (Py_ssize_t)end);
        Py_DECREF(a);
        return NULL;
    }
    for (i = 0; i < n; i++)
        if (v[i + 1] < v[i]) {
            PyErr_Format(PyExc_ValueError, "%s must not decrease", name);
            Py_DECREF(a);
            return NULL;
        }
    return a;
}

static PyObject *py_validate_holds(PyObject *self, PyObject *args)
{
    PyObject *xyo, *rso, *pro, *pto, *pso, *res = NULL;
    PyArrayObject *xy = NULL, *rs = NULL, *pr = NULL, *pts = NULL, *ps = NULL;
    Py_ssize_t n;
    npy_intp nr;
    double tol;
    int32_t bad = -1;
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOnOOd", &xyo, &rso, &pro, &n, &pto, &pso, &tol)) return NULL;
    if (n < 0 || n > INT32_MAX - 1) return PyErr_Format(PyExc_ValueError, "validate_holds: polygon count out of range");
    if (!(xy = as_points(xyo, "ring points", 1, 1, MAX_MESH_POINTS)) ||
        !(pts = as_points(pto, "points", 1, 0, MAX_MESH_POINTS)))
        goto done;
    /* ring_start's length gives the ring count, which poly_ring must end at */
    rs = (PyArrayObject *)PyArray_FROMANY(rso, NPY_INT32, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    if (!rs) goto done;
    nr = PyArray_DIM(rs, 0) - 1;
    Py_CLEAR(rs);
    if (nr < 0) { PyErr_SetString(PyExc_ValueError, "ring_start must hold at least one offset"); goto done; }
    if (!(rs = as_offsets(rso, "ring_start", nr, PyArray_DIM(xy, 0)))) goto done;
    if (!(pr = as_offsets(pro, "poly_ring", n, nr))) goto done;
    if (!(ps = as_offsets(pso, "point_start", n, PyArray_DIM(pts, 0)))) goto done;
    Py_BEGIN_ALLOW_THREADS
    s = un_validate_holds((const double *)PyArray_DATA(xy), (const int32_t *)PyArray_DATA(rs),
                          (const int32_t *)PyArray_DATA(pr), (int32_t)n, (const double *)PyArray_DATA(pts),
                          (const int32_t *)PyArray_DATA(ps), tol, &bad);
    Py_END_ALLOW_THREADS
    if (s != UN_OK) raise_status(s, "validate_holds");
    else res = PyLong_FromLong((long)bad);
done:
    Py_XDECREF(xy); Py_XDECREF(rs); Py_XDECREF(pr); Py_XDECREF(pts); Py_XDECREF(ps);
    return res;
}

/* --------------------------------------------------------------- Packer */

typedef struct {
    PyObject_HEAD
    un_chains   *pk;         /* the chains of the search (one: the serial packer) */
    volatile int cancel;     /* set from any thread by cancel() */
    int          busy;       /* a call is running with the GIL released */
    Py_ssize_t   n;
} PackerObject;

static void packer_dealloc(PackerObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    un_chains_free(self->pk);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp); /* instances of heap types own a reference to their type */
}

static int packer_init(PackerObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"target", "margin", "padding", "angles", "align", "flip", "seed",
                             "cache_bytes", "anneal_max", "fixed_scale", "max_bins", "box", "threads", NULL};
    PyObject *to, *ao;
    PyArrayObject *ang = NULL;
    un_pack_options opt;
    unsigned long long seed = 0;
    int align = 1, flip = 0, amax = 0, maxb = 0, box = 0, threads = 1;
    double fixed = 0;
    un_status st;
    memset(&opt, 0, sizeof opt);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OddOppKdi|dipi", kwlist, &to, &opt.margin, &opt.padding, &ao,
                                     &align, &flip, &seed, &opt.cache_bytes, &amax, &fixed, &maxb, &box, &threads))
        return -1;
    if (threads < 1) {
        PyErr_Format(PyExc_ValueError, "threads must be at least 1, got %d", threads);
        return -1;
    }
    opt.fixed_scale = fixed;
    opt.max_bins = maxb;
    opt.box = box;
    if (!PyArg_ParseTuple(to, "dddd", &opt.target[0], &opt.target[1], &opt.target[2], &opt.target[3])) {
        PyErr_SetString(PyExc_TypeError, "target must be (x0, y0, x1, y1)");
        return -1;
    }
    ang = (PyArrayObject *)PyArray_FROMANY(ao, NPY_DOUBLE, 1, 1, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    if (!ang) return -1;
    opt.nangles = (int32_t)PyArray_DIM(ang, 0);
    opt.angles = (const double *)PyArray_DATA(ang);
    opt.align = align;
    opt.flip = flip;
    opt.seed = seed;
    opt.anneal_max = amax;
    un_chains_free(self->pk);
    self->pk = NULL;
    st = un_chains_new(&opt, threads, &self->pk);
    Py_DECREF(ang);
    if (st == UN_EINVAL) {
        PyErr_SetString(PyExc_ValueError, "invalid packer options (target, margin, padding, angles or cache size)");
        return -1;
    }
    if (st != UN_OK) { raise_status(st, "Packer"); return -1; }
    return 0;
}

static int packer_ready(PackerObject *self)
{
    if (!self->pk) { PyErr_SetString(PyExc_RuntimeError, "Packer is not initialised"); return 0; }
    if (self->busy) { PyErr_SetString(PyExc_RuntimeError, "Packer is already running in another thread"); return 0; }
    return 1;
}

static PyObject *packer_add_island(PackerObject *self, PyObject *args)
{
    PyObject *ro;
    double area;
    un_frings f;
    un_status s;
    char label[64];
    if (!PyArg_ParseTuple(args, "Od", &ro, &area) || !packer_ready(self)) return NULL;
    snprintf(label, sizeof label, "island %zd outline", self->n);
    if (to_frings(ro, label, &f) < 0) return NULL;
    s = un_chains_add_island(self->pk, &f, area);
    un_frings_free(&f);
    if (s == UN_EINVAL)
        return PyErr_Format(PyExc_ValueError, "island %zd: area must be > 0 and the packer not started", self->n);
    if (s != UN_OK) return raise_status(s, "add_island");
    self->n++;
    Py_RETURN_NONE;
}

static PyObject *packer_add_locked(PackerObject *self, PyObject *args)
{
    PyObject *ro;
    un_frings f;
    un_status s;
    if (!PyArg_ParseTuple(args, "O", &ro) || !packer_ready(self)) return NULL;
    if (to_frings(ro, "locked island outline", &f) < 0) return NULL;
    s = un_chains_add_locked(self->pk, &f);
    un_frings_free(&f);
    if (s != UN_OK) return raise_status(s, "add_locked");
    Py_RETURN_NONE;
}

static PyObject *packer_set_group(PackerObject *self, PyObject *args)
{
    int k, g;
    un_status s;
    if (!PyArg_ParseTuple(args, "ii", &k, &g) || !packer_ready(self)) return NULL;
    s = un_chains_set_group(self->pk, k, g);
    if (s == UN_EINVAL) return PyErr_Format(PyExc_ValueError, "set_group: island %d or group %d out of range", k, g);
    if (s != UN_OK) return raise_status(s, "set_group");
    Py_RETURN_NONE;
}

static PyObject *packer_start(PackerObject *self, PyObject *noargs)
{
    un_status s;
    (void)noargs;
    if (!packer_ready(self)) return NULL;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    s = un_chains_start(self->pk, &self->cancel);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (s == UN_ENOFIT) Py_RETURN_NONE;   /* an answer about the input: Python raises uvnest.errors.CannotFitError */
    if (s == UN_ECANCELLED) Py_RETURN_FALSE;   /* a later start() goes on */
    if (s != UN_OK) return raise_status(s, "start");
    Py_RETURN_TRUE;
}

static PyObject *packer_run(PackerObject *self, PyObject *args)
{
    long long moves;
    int improved = 0, lockstep = 1;
    un_status s;
    if (!PyArg_ParseTuple(args, "L|p", &moves, &lockstep) || !packer_ready(self)) return NULL;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    s = un_chains_run(self->pk, moves, lockstep, &self->cancel, &improved);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (s == UN_ECANCELLED) return Py_BuildValue("(OO)", improved ? Py_True : Py_False, Py_True);
    if (s != UN_OK) return raise_status(s, "run");
    return Py_BuildValue("(OO)", improved ? Py_True : Py_False, Py_False);
}

static PyObject *packer_cancel(PackerObject *self, PyObject *noargs)
{
    (void)noargs;
    self->cancel = 1;
    Py_RETURN_NONE;
}

static PyObject *packer_reset_cancel(PackerObject *self, PyObject *noargs)
{
    (void)noargs;
    self->cancel = 0;
    Py_RETURN_NONE;
}

static PyObject *packer_best(PackerObject *self, PyObject *noargs)
{
    npy_intp n = self->n, i;
    un_transform *t;
    PyObject *ang, *flip, *sc, *tr, *bins, *res;
    (void)noargs;
    if (!self->pk) Py_RETURN_NONE;
    if (!(t = (un_transform *)malloc((size_t)(n ? n : 1) * sizeof *t))) return PyErr_NoMemory();
    if (!un_chains_best(self->pk, t)) { free(t); Py_RETURN_NONE; }
    ang = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    flip = PyArray_SimpleNew(1, &n, NPY_BOOL);
    sc = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    bins = PyArray_SimpleNew(1, &n, NPY_INT32);
    {
        npy_intp d2[2] = {n, 2};
        tr = PyArray_SimpleNew(2, d2, NPY_DOUBLE);
    }
    if (!ang || !flip || !sc || !tr || !bins) {
        Py_XDECREF(ang); Py_XDECREF(flip); Py_XDECREF(sc); Py_XDECREF(tr); Py_XDECREF(bins); free(t);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        ((double *)PyArray_DATA((PyArrayObject *)ang))[i] = t[i].angle;
        ((npy_bool *)PyArray_DATA((PyArrayObject *)flip))[i] = (npy_bool)(t[i].flip != 0);
        ((double *)PyArray_DATA((PyArrayObject *)sc))[i] = t[i].scale;
        ((double *)PyArray_DATA((PyArrayObject *)tr))[2 * i] = t[i].tx;
        ((double *)PyArray_DATA((PyArrayObject *)tr))[2 * i + 1] = t[i].ty;
        ((int32_t *)PyArray_DATA((PyArrayObject *)bins))[i] = t[i].bin;
    }
    free(t);
    res = Py_BuildValue("(NNNNN)", ang, flip, sc, tr, bins);
    return res;
}

/* The rotation moves by kind: {kind: (proposed, accepted, improved,
 * completed, no_pair)}, the kinds and counts of un_pack_stats.theta. */
static PyObject *theta_stats(const un_pack_stats *st)
{
    static const char *const kinds[UN_THETA_KINDS] = {"wall", "neighbour", "refine", "random"};
    PyObject *d = PyDict_New();
    int k;
    if (!d) return NULL;
    for (k = 0; k < UN_THETA_KINDS; k++) {
        const int64_t *c = st->theta[k];
        PyObject *t = Py_BuildValue("(LLLLL)", (long long)c[UN_THETA_PROPOSED], (long long)c[UN_THETA_ACCEPTED],
                                    (long long)c[UN_THETA_IMPROVED], (long long)c[UN_THETA_COMPLETED],
                                    (long long)c[UN_THETA_NO_PAIR]);
        if (!t || PyDict_SetItemString(d, kinds[k], t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(t);
    }
    return d;
}

static PyObject *packer_stats(PackerObject *self, PyObject *noargs)
{
    un_pack_stats st;
    un_parallel_stats par;
    PyObject *theta;
    (void)noargs;
    if (!self->pk) Py_RETURN_NONE;
    un_chains_stats(self->pk, &st, &par);
    if (!(theta = theta_stats(&st))) return NULL;
    return Py_BuildValue("{s:L,s:L,s:L,s:d,s:d,s:n,s:L,s:L,s:i,s:d,s:d,s:i,s:d,s:i,s:L,s:L,s:d,s:d,s:d,s:d,s:N}",
                         "moves",
                         (long long)st.moves, "layouts", (long long)st.layouts, "rejected", (long long)st.rejected,
                         "coverage", st.coverage, "scale", st.scale, "cache_bytes", (Py_ssize_t)st.cache_bytes,
                         "cache_hits", (long long)st.cache_hits, "cache_misses", (long long)st.cache_misses,
                         "annealed", (int)st.annealed, "trying", st.trying, "waste", st.waste, "bins", (int)st.bins,
                         "bins_f", st.bins_f, "chains", (int)par.chains, "moves_all", (long long)par.moves_all,
                         "rounds", (long long)par.rounds, "chain_seconds", par.chain_seconds, "wall_seconds",
                         par.wall_seconds, "serial_seconds", par.serial_seconds, "serial_coverage",
                         par.serial_coverage, "theta_moves", theta);
}

static PyMethodDef packer_methods[] = {
    {"add_island", (PyCFunction)packer_add_island, METH_VARARGS, "add_island(rings, area)"},
    {"add_locked", (PyCFunction)packer_add_locked, METH_VARARGS, "add_locked(rings)"},
    {"set_group", (PyCFunction)packer_set_group, METH_VARARGS, "set_group(island, group)"},
    {"start", (PyCFunction)packer_start, METH_NOARGS,
     "start() -> True when the first layout is ready, False when cancelled (call again to go on), "
     "None when the islands cannot fit the target"},
    {"run", (PyCFunction)packer_run, METH_VARARGS,
     "run(moves, lockstep=True) -> (improved, cancelled); lockstep False: the other threads' chains move "
     "until the first is done (a search bounded by time)"},
    {"cancel", (PyCFunction)packer_cancel, METH_NOARGS, "cancel(): stop a running call (any thread)"},
    {"reset_cancel", (PyCFunction)packer_reset_cancel, METH_NOARGS, "clear the cancel flag"},
    {"best", (PyCFunction)packer_best, METH_NOARGS, "best() -> (angle, flip, scale, translation) or None"},
    {"stats", (PyCFunction)packer_stats, METH_NOARGS, "stats() -> dict"},
    {NULL, NULL, 0, NULL}
};

static PyType_Slot packer_slots[] = {
    {Py_tp_dealloc, (void *)packer_dealloc},
    {Py_tp_doc, (void *)"Low-level packer: see uvnest.Packer"},
    {Py_tp_methods, packer_methods},
    {Py_tp_init, (void *)packer_init},
    {Py_tp_new, (void *)PyType_GenericNew},
    {0, NULL}
};

static PyType_Spec packer_spec = {
    "uvnest._core.Packer", sizeof(PackerObject), 0, Py_TPFLAGS_DEFAULT, packer_slots
};

/* Module function `name`: py_<name>, positional arguments, documented by
 * doc (one name for both). */
#define MODULE_FUNCTION(name, doc) {#name, py_##name, METH_VARARGS, doc}

static PyMethodDef methods[] = {
    MODULE_FUNCTION(outline, "outline(uvs, face_start, face_indices) -> rings"),
    MODULE_FUNCTION(nfp, "nfp(a, b[, workspace]) -> rings"),
    MODULE_FUNCTION(outlines, "outlines(uvs, face_start, face_indices, face_group, ngroups) -> ([rings], solid)"),
    MODULE_FUNCTION(overlap_groups, "overlap_groups([rings]) -> labels"),
    MODULE_FUNCTION(simplify, "simplify(rings, tolerance, max_vertices) -> (rings, used)"),
    MODULE_FUNCTION(hull, "hull(rings) -> [ring]"),
    MODULE_FUNCTION(ifp, "ifp(container, piece[, workspace]) -> regions"),
    MODULE_FUNCTION(cfr, "cfr(container, placed, piece, margin[, workspace]) -> regions"),
    MODULE_FUNCTION(cfr_from_nfps, "cfr_from_nfps(container, nfps, piece[, workspace]) -> regions"),
    MODULE_FUNCTION(point_at, "point_at(region, r) -> (x, y)"),
    MODULE_FUNCTION(overlaps, "overlaps(a, b, margin) -> (bool, distance)"),
    MODULE_FUNCTION(components, "components(n, a, b) -> (labels, count)"),
    MODULE_FUNCTION(pack_pow2, "pack_pow2(sizes, layer) -> ((n, 3) x y layer, layers)"),
    MODULE_FUNCTION(validate, "validate(polys, nfixed, margin, box) -> (bad_a, bad_b)"),
    MODULE_FUNCTION(validate_holds, "validate_holds(ring_xy, ring_start, poly_ring, npolys, points, point_start, "
                                    "tol) -> bad (-1: each polygon k, rings poly_ring[k]:poly_ring[k+1], holds "
                                    "points[point_start[k]:point_start[k+1]] within tol)"),
    {NULL, NULL, 0, NULL}
};

#undef MODULE_FUNCTION

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_core", "uvnest C core (see csrc/uvnest.h)", -1, methods,
    NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m, *type;
    import_array();
    m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    type = PyType_FromSpec(&packer_spec);
    if (!type || PyModule_AddObject(m, "Packer", type) < 0) {
        Py_XDECREF(type);
        Py_DECREF(m);
        return NULL;
    }
    type = PyType_FromSpec(&workspace_spec);
    if (!type || PyModule_AddObject(m, "Workspace", type) < 0) {
        Py_XDECREF(type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
