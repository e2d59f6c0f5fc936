/*
 * binding.c - the Python module uvnest._core.
 *
 * The only file that includes Python.h or the numpy headers.  It converts
 * and validates arguments (naming the offending one in every error), runs
 * the pure-C work with the GIL released, and maps un_status codes to
 * Python exceptions.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define PY_ARRAY_UNIQUE_SYMBOL uvnest_ARRAY_API
#include <numpy/arrayobject.h>

#include "internal.h"

#include <math.h>

/* Largest ring input accepted by the geometry functions: far beyond any UV
 * island, small enough that every algorithm finishes. */
#define MAX_RING_POINTS 2000000
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

/* A (n, 2) float64 array from any object; NULL with an exception naming
 * `name` otherwise. */
static PyArrayObject *as_points(PyObject *o, const char *name, int allow_empty)
{
    PyArrayObject *a;
    npy_intp n, i;
    const double *p;
    if (PyArray_Check(o) && !PyArray_ISNUMBER((PyArrayObject *)o)) {
        PyErr_Format(PyExc_TypeError, "%s must be numeric, not dtype %R", name,
                     (PyObject *)PyArray_DESCR((PyArrayObject *)o));
        return NULL;
    }
    a = (PyArrayObject *)PyArray_FROMANY(o, NPY_DOUBLE, 0, 0, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    if (!a) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be an (n, 2) array of numbers", name);
        return NULL;
    }
    if (PyArray_NDIM(a) != 2 || PyArray_DIM(a, 1) != 2) {
        PyErr_Format(PyExc_ValueError, "%s must have shape (n, 2), got %d dimension(s)%s", name,
                     PyArray_NDIM(a), PyArray_NDIM(a) == 2 ? " with a second size other than 2" : "");
        Py_DECREF(a);
        return NULL;
    }
    n = PyArray_DIM(a, 0);
    if (n > MAX_RING_POINTS) {
        PyErr_Format(PyExc_ValueError, "%s has %zd points; at most %d are supported", name,
                     (Py_ssize_t)n, MAX_RING_POINTS);
        Py_DECREF(a);
        return NULL;
    }
    if (!allow_empty && n < 3) {
        PyErr_Format(PyExc_ValueError, "%s has %zd point(s); a ring needs at least 3", name, (Py_ssize_t)n);
        Py_DECREF(a);
        return NULL;
    }
    p = (const double *)PyArray_DATA(a);
    for (i = 0; i < 2 * n; i++) {
        if (!isfinite(p[i])) {
            PyErr_Format(PyExc_ValueError, "%s has a %s coordinate at point %zd", name,
                         isnan(p[i]) ? "NaN" : "infinite", (Py_ssize_t)(i / 2));
            Py_DECREF(a);
            return NULL;
        }
    }
    return a;
}

/* A sequence of rings -> un_frings. */
static int to_frings(PyObject *seq, const char *name, un_frings *out)
{
    PyObject *fast;
    Py_ssize_t k, n;
    char label[160];
    int64_t total = 0;
    un_frings_init(out);
    if (PyArray_Check(seq) && PyArray_NDIM((PyArrayObject *)seq) == 2) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of rings ((n, 2) arrays), not a single array", name);
        return -1;
    }
    fast = PySequence_Fast(seq, "");
    if (!fast) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a list of rings ((n, 2) arrays)", name);
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
        a = as_points(PySequence_Fast_GET_ITEM(fast, k), label, 0);
        if (!a) goto fail;
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
    if (!(uv = as_points(uvo, "uvs", 1))) return NULL;
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
    if (s != UN_OK) { raise_status(s, "outline"); goto done; }
    res = rings_to_list(&out, 0, out.nrings);
done:
    Py_XDECREF(uv); Py_XDECREF(fs); Py_XDECREF(fi);
    un_frings_free(&out);
    return res;
}

static PyObject *py_nfp(PyObject *self, PyObject *args)
{
    PyObject *ao, *bo, *res = NULL;
    un_frings a, b, out;
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO", &ao, &bo)) return NULL;
    un_frings_init(&out);
    if (to_frings(ao, "a", &a) < 0) return NULL;
    if (to_frings(bo, "b", &b) < 0) { un_frings_free(&a); return NULL; }
    if ((int64_t)un_frings_npts(&a) * un_frings_npts(&b) > MAX_NFP_PAIRS) {
        PyErr_Format(PyExc_ValueError, "nfp: %d x %d vertices is too many; simplify the polygons first",
                     (int)un_frings_npts(&a), (int)un_frings_npts(&b));
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    s = un_geom_nfp(&a, &b, &out);
    Py_END_ALLOW_THREADS
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

static PyObject *py_ifp(PyObject *self, PyObject *args)
{
    PyObject *co, *po, *res = NULL;
    un_frings c, p;
    un_fregions out;
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO", &co, &po)) return NULL;
    if (to_frings(co, "container", &c) < 0) return NULL;
    if (to_frings(po, "piece", &p) < 0) { un_frings_free(&c); return NULL; }
    memset(&out, 0, sizeof out);
    Py_BEGIN_ALLOW_THREADS
    s = un_geom_ifp(&c, &p, &out);
    Py_END_ALLOW_THREADS
    if (s != UN_OK) raise_status(s, "ifp");
    else res = regions_to_list(&out);
    un_frings_free(&c); un_frings_free(&p); un_fregions_free(&out);
    return res;
}

static PyObject *py_cfr(PyObject *self, PyObject *args)
{
    PyObject *co, *plo, *po, *res = NULL, *fast = NULL;
    un_frings c, p, *placed = NULL;
    un_fregions out;
    double margin;
    Py_ssize_t n = 0, k;
    un_status s;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOd", &co, &plo, &po, &margin)) return NULL;
    if (!(margin >= 0) || !isfinite(margin)) return PyErr_Format(PyExc_ValueError, "margin must be a finite number >= 0");
    if (!(fast = PySequence_Fast(plo, "placed must be a list of polygons (lists of rings)"))) return NULL;
    n = PySequence_Fast_GET_SIZE(fast);
    memset(&out, 0, sizeof out);
    un_frings_init(&c); un_frings_init(&p);
    placed = (un_frings *)calloc((size_t)n + 1, sizeof *placed);
    if (!placed) { PyErr_NoMemory(); goto done; }
    if (to_frings(co, "container", &c) < 0 || to_frings(po, "piece", &p) < 0) goto done;
    for (k = 0; k < n; k++) {
        char label[64];
        snprintf(label, sizeof label, "placed[%zd]", (Py_ssize_t)k);
        if (to_frings(PySequence_Fast_GET_ITEM(fast, k), label, placed + k) < 0) goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    s = un_geom_cfr(&c, placed, (int32_t)n, &p, margin, &out);
    Py_END_ALLOW_THREADS
    if (s != UN_OK) raise_status(s, "cfr");
    else res = regions_to_list(&out);
done:
    for (k = 0; placed && k < n; k++) un_frings_free(placed + k);
    free(placed);
    Py_XDECREF(fast);
    un_frings_free(&c); un_frings_free(&p); un_fregions_free(&out);
    return res;
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
    if (to_frings(ro, "region", &g.rings) < 0) return NULL;
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

static PyMethodDef methods[] = {
    {"outline", py_outline, METH_VARARGS, "outline(uvs, face_start, face_indices) -> rings"},
    {"nfp", py_nfp, METH_VARARGS, "nfp(a, b) -> rings"},
    {"simplify", py_simplify, METH_VARARGS, "simplify(rings, tolerance, max_vertices) -> (rings, used)"},
    {"ifp", py_ifp, METH_VARARGS, "ifp(container, piece) -> regions"},
    {"cfr", py_cfr, METH_VARARGS, "cfr(container, placed, piece, margin) -> regions"},
    {"point_at", py_point_at, METH_VARARGS, "point_at(region, r) -> (x, y)"},
    {"overlaps", py_overlaps, METH_VARARGS, "overlaps(a, b, margin) -> (bool, distance)"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_core", "uvnest C core (see csrc/uvnest.h)", -1, methods,
    NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m;
    import_array();
    m = PyModule_Create(&moduledef);
    return m;
}
