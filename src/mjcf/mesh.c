// SPDX-License-Identifier: Apache-2.0
// Mesh assets compiled as MuJoCo 2.2.2 compiles them: float vertices, hull, inertia, frame.
#include "mjcf/mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"
#include "model/hull.h"
#include "model/mesh_model.h"
#include "mjcf/mesh_file.h"
#include "mjcf/orientation.h"

static int fail(gdnSpec* spec, gdnStatus status, gdnXmlElem* e, const char* fmt,
                const char* arg) {
    return gdn_xml_error(spec->diag, status, e, fmt, arg);
}

int gdn_mjcf_mesh_find(const gdnSpec* spec, const char* name) {
    for (int i = 0; i < spec->nmesh; i++) {
        if (!strcmp(spec->meshes[i].name, name)) {
            return i;
        }
    }
    return -1;
}

// MuJoCo 2.2.2's rule: model directory / meshdir / file; absolute parts win (assetdir is 3.x:
// the schema refuses it)
static char* mesh_path(gdnSpec* spec, const char* file) {
    const char* sub = spec->compiler.meshdir;
    if (file[0] == '/') {
        return gdn_pool_strndup(spec->pool, file, strlen(file));
    }
    const char* dir = spec->model_dir;
    if (sub && sub[0]) {
        char* d = gdn_pool_join_path(spec->pool, dir, sub);
        if (!d) {
            return NULL;
        }
        dir = d;
    }
    return gdn_pool_join_path(spec->pool, dir, file);
}

// ---------------------------------------------------------------- reading

// the raw mesh before processing (pool memory): float vertices and triangles (nface 0: none),
// and whether the given faces repeat a directed edge (MuJoCo's orientation check)
typedef struct RawMesh {
    float* vert;
    int nvert;
    int* face;
    int nface;
    int bad_orientation;
} RawMesh;

// MuJoCo's vertex sort key: x + 1e-2 y + 1e-4 z (double arithmetic, rounded to float)
static float sort_key(const float* v) {
    return (float)((double)v[0] + 1e-2 * (double)v[1] + 1e-4 * (double)v[2]);
}

// stable merge sort of ids by key (glibc's qsort is a merge sort: equal keys keep their order)
static void merge_sort(int* ids, int* tmp, int n, const float* key) {
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n;
            int hi = lo + 2 * width < n ? lo + 2 * width : n;
            int a = lo, b = mid, k = lo;
            while (a < mid && b < hi) {
                tmp[k++] = key[ids[b]] < key[ids[a]] ? ids[b++] : ids[a++];
            }
            while (a < mid) {
                tmp[k++] = ids[a++];
            }
            while (b < hi) {
                tmp[k++] = ids[b++];
            }
        }
        memcpy(ids, tmp, sizeof(int) * (size_t)n);
    }
}

// MuJoCo's removal of repeated STL vertices: sort by key, a vertex equal to its predecessor in
// that order is redirected to it; survivors keep their file order. 0 ok, -1 out of memory
static int remove_repeated(RawMesh* r) {
    int n = r->nvert;
    int* ids = malloc(sizeof(int) * (size_t)n);
    int* tmp = malloc(sizeof(int) * (size_t)n);
    int* redirect = malloc(sizeof(int) * (size_t)n);
    float* key = malloc(sizeof(float) * (size_t)n);
    if (!ids || !tmp || !redirect || !key) {
        free(ids);
        free(tmp);
        free(redirect);
        free(key);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        ids[i] = redirect[i] = i;
        key[i] = sort_key(r->vert + 3 * i);
    }
    merge_sort(ids, tmp, n, key);
    int repeated = 0;
    for (int i = 1; i < n; i++) {
        const float* a = r->vert + 3 * ids[i];
        const float* b = r->vert + 3 * ids[i - 1];
        if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]) {
            redirect[ids[i]] = ids[i - 1];
            repeated++;
        }
    }
    if (repeated) {
        // follow redirections to a survivor; compact survivors, ids[i] = new index
        for (int i = 0; i < n; i++) {
            int j = i;
            while (redirect[j] != j) {
                j = redirect[j];
            }
            redirect[i] = j;
        }
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (redirect[i] == i) {
                ids[i] = k;
                memmove(r->vert + 3 * k, r->vert + 3 * i, 3 * sizeof(float));
                k++;
            } else {
                ids[i] = -1;
            }
        }
        for (int i = 0; i < 3 * r->nface; i++) {
            r->face[i] = ids[redirect[r->face[i]]];
        }
        r->nvert = k;
    }
    free(ids);
    free(tmp);
    free(redirect);
    free(key);
    return 0;
}

// total order on edge codes for qsort
static int compare_edge(const void* x, const void* y) {
    long long a = *(const long long*)x, b = *(const long long*)y;
    return (a > b) - (a < b);
}

// does any directed edge (a, b) of the triangles repeat? (inconsistent orientation)
static int repeats_directed_edge(const int* face, int nface) {
    if (nface <= 0) {
        return 0;
    }
    long long* edges = malloc(sizeof(long long) * 3 * (size_t)nface);
    if (!edges) {
        return 0;
    }
    for (int t = 0; t < nface; t++) {
        for (int k = 0; k < 3; k++) {
            long long a = face[3 * t + k], b = face[3 * t + (k + 1) % 3];
            edges[3 * t + k] = a * 2147483648LL + b;
        }
    }
    qsort(edges, 3 * (size_t)nface, sizeof(long long), compare_edge);
    int dup = 0;
    for (int i = 1; i < 3 * nface && !dup; i++) {
        dup = edges[i] == edges[i - 1];
    }
    free(edges);
    return dup;
}

// the raw vertices and faces of a mesh, in MuJoCo's layout: STL keeps its per-triangle
// vertices until remove_repeated; an OBJ with faces has one vertex per triangle corner; an
// inline mesh keeps its vertex and face lists
static int read_raw(gdnSpec* spec, gdnSpecMesh* me, RawMesh* r) {
    memset(r, 0, sizeof(*r));
    int righthand = me->scale[0] * me->scale[1] * me->scale[2] > 0;
    if (!me->file[0]) {
        if (me->nvertex < 4) {
            return fail(spec, GDN_ERR_MODEL, me->elem, "%s", "at least 4 vertices required");
        }
        r->nvert = me->nvertex;
        r->nface = me->nface_attr;
        r->vert = gdn_pool_alloc(spec->pool, sizeof(float) * 3 * (size_t)r->nvert);
        r->face = gdn_pool_alloc(spec->pool, sizeof(int) * 3 * (size_t)(r->nface + 1));
        if (!r->vert || !r->face) {
            return fail(spec, GDN_ERR_MEMORY, me->elem, "%s", "out of memory");
        }
        for (int i = 0; i < 3 * r->nvert; i++) {
            r->vert[i] = (float)me->vertex[i];
        }
        for (int i = 0; i < 3 * r->nface; i++) {
            double id = me->face_attr[i];
            if (!(id >= 0 && id < r->nvert) || id != floor(id)) {
                return fail(spec, GDN_ERR_MODEL, me->elem, "%s",
                            "face vertex index out of range or not an integer");
            }
            r->face[i] = (int)id;
        }
        r->bad_orientation = repeats_directed_edge(r->face, r->nface);
        return 0;
    }
    if (me->nface_attr) {
        return fail(spec, GDN_ERR_MODEL, me->elem, "%s", "repeated face specification");
    }
    char* path = mesh_path(spec, me->file);
    if (!path) {
        return fail(spec, GDN_ERR_MEMORY, me->elem, "%s", "out of memory");
    }
    char cause[256];
    gdnMeshTriangles t;
    gdnStatus st = gdn_mesh_read_triangles(path, &t, cause, (int)sizeof(cause));
    if (st != GDN_OK) {
        return gdn_xml_error(spec->diag, st, me->elem, "mesh file '%s': %s", path, cause);
    }
    int is_stl = gdn_mesh_format_of(path) == GDN_MESH_STL;
    int per_corner = is_stl || t.nface > 0;
    r->nvert = per_corner ? 3 * t.nface : t.nvert;
    r->nface = t.nface;
    r->vert = gdn_pool_alloc(spec->pool, sizeof(float) * 3 * (size_t)(r->nvert + 1));
    r->face = gdn_pool_alloc(spec->pool, sizeof(int) * 3 * (size_t)(r->nface + 1));
    if (!r->vert || !r->face) {
        gdn_mesh_triangles_free(&t);
        return fail(spec, GDN_ERR_MEMORY, me->elem, "%s", "out of memory");
    }
    if (!per_corner) {
        for (int i = 0; i < 3 * r->nvert; i++) {
            r->vert[i] = (float)t.vert[i];
        }
    }
    for (int f = 0; per_corner && f < t.nface; f++) {
        for (int k = 0; k < 3; k++) {
            const double* v = t.vert + 3 * t.face[3 * f + k];
            for (int c = 0; c < 3; c++) {
                r->vert[9 * f + 3 * k + c] = (float)v[c];
            }
        }
        // a left-handed scale reverses the triangle
        r->face[3 * f] = 3 * f;
        r->face[3 * f + 1] = righthand ? 3 * f + 1 : 3 * f + 2;
        r->face[3 * f + 2] = righthand ? 3 * f + 2 : 3 * f + 1;
    }
    if (!is_stl) {
        r->bad_orientation = repeats_directed_edge(t.face, t.nface);
    }
    gdn_mesh_triangles_free(&t);
    for (int i = 0; i < 3 * r->nvert; i++) {
        if (!isfinite(r->vert[i])) {
            return fail(spec, GDN_ERR_MODEL, me->elem, "%s",
                        "mesh vertex does not fit in float32");
        }
    }
    if (is_stl && remove_repeated(r) < 0) {
        return fail(spec, GDN_ERR_MEMORY, me->elem, "%s", "out of memory");
    }
    if (r->nvert < 4) {
        return fail(spec, GDN_ERR_MODEL, me->elem, "%s", "at least 4 vertices required");
    }
    return 0;
}


// ---------------------------------------------------------------- hull

// hull graph of the raw vertices (as doubles); faces <- the hull's triangles when the mesh has
// none. 0 ok, -1 after an error
static int make_hull(gdnSpec* spec, gdnSpecMesh* me, RawMesh* r, int need_graph) {
    double* pts = malloc(sizeof(double) * 3 * (size_t)r->nvert);
    if (!pts) {
        return fail(spec, GDN_ERR_MEMORY, me->elem, "%s", "out of memory");
    }
    for (int i = 0; i < 3 * r->nvert; i++) {
        pts[i] = (double)r->vert[i];
    }
    gdnHull hull;
    char cause[200];
    gdnStatus st = gdn_hull_build(pts, r->nvert, &hull, cause, (int)sizeof(cause));
    free(pts);
    if (st != GDN_OK) {
        return gdn_xml_error(spec->diag, st, me->elem, "convex hull of mesh '%s': %s", me->name,
                             cause);
    }
    int size = gdn_hull_graph_size(&hull);
    int* graph = gdn_pool_alloc(spec->pool, sizeof(int) * (size_t)size);
    if (!graph) {
        gdn_hull_free(&hull);
        return fail(spec, GDN_ERR_MEMORY, me->elem, "%s", "out of memory");
    }
    gdn_hull_graph(&hull, graph);
    if (need_graph) {
        me->graph = graph;
        me->ngraph = size;
    }
    if (r->nface == 0) {
        r->face = gdn_pool_alloc(spec->pool, sizeof(int) * 3 * (size_t)hull.nface);
        if (!r->face) {
            gdn_hull_free(&hull);
            return fail(spec, GDN_ERR_MEMORY, me->elem, "%s", "out of memory");
        }
        memcpy(r->face, hull.face, sizeof(int) * 3 * (size_t)hull.nface);
        r->nface = hull.nface;
    }
    gdn_hull_free(&hull);
    return 0;
}

// ---------------------------------------------------------------- processing

// MuJoCo's triangle measure on float vertices: centre (float mean), unit normal of
// (v2 - v1) x (v3 - v1) (float differences, double cross product); returns the area, 0 (and
// an unnormalized normal) for a degenerate triangle
static double area_normal_center(double nrm[3], double cen[3], const float* v1, const float* v2,
                                 const float* v3) {
    for (int i = 0; i < 3; i++) {
        cen[i] = (double)((v1[i] + v2[i] + v3[i]) / 3.0f);
    }
    double b[3] = {(double)(v2[0] - v1[0]), (double)(v2[1] - v1[1]), (double)(v2[2] - v1[2])};
    double c[3] = {(double)(v3[0] - v1[0]), (double)(v3[1] - v1[1]), (double)(v3[2] - v1[2])};
    nrm[0] = b[1] * c[2] - b[2] * c[1];
    nrm[1] = b[2] * c[0] - b[0] * c[2];
    nrm[2] = b[0] * c[1] - b[1] * c[0];
    double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
    if (len < GDN_MINVAL) {
        return 0;
    }
    nrm[0] /= len;
    nrm[1] /= len;
    nrm[2] /= len;
    return len / 2;
}

// second-moment integrand of a triangle pyramid in float arithmetic (MuJoCo's expression):
// 2 (D_a D_b + E_a E_b + F_a F_b) + D_a E_b + D_b E_a + D_a F_b + D_b F_a + E_a F_b + E_b F_a
static float pyramid_moment(const float* D, const float* E, const float* F, int a, int b) {
    return 2.0f * (D[a] * D[b] + E[a] * E[b] + F[a] * F[b]) + D[a] * E[b] + D[b] * E[a] +
           D[a] * F[b] + D[b] * F[a] + E[a] * F[b] + E[b] * F[a];
}

// the reference transform of the raw vertices: v -= refpos (float), v = R(refquat)' v,
// v .* scale
static void transform_vertices(const gdnSpecMesh* me, float* vert, int nvert) {
    const double* rp = me->refpos;
    if (rp[0] != 0 || rp[1] != 0 || rp[2] != 0) {
        float f[3] = {(float)rp[0], (float)rp[1], (float)rp[2]};
        for (int i = 0; i < nvert; i++) {
            for (int k = 0; k < 3; k++) {
                vert[3 * i + k] -= f[k];
            }
        }
    }
    const double* rq = me->refquat;
    if (rq[0] != 1 || rq[1] != 0 || rq[2] != 0 || rq[3] != 0) {
        // unit quaternion (q / |q| as a product with 1 / |q|), its matrix, p1 = R' p0
        double q[4] = {rq[0], rq[1], rq[2], rq[3]};
        double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        double inv = 1 / norm;
        for (int k = 0; k < 4; k++) {
            q[k] *= inv;
        }
        double R[9];
        if (q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0) {
            const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            memcpy(R, identity, sizeof(R));
        } else {
            gdn_quat2mat(R, q);
        }
        for (int i = 0; i < nvert; i++) {
            float* v = vert + 3 * i;
            double p[3] = {(double)v[0], (double)v[1], (double)v[2]};
            for (int k = 0; k < 3; k++) {
                v[k] = (float)(R[k] * p[0] + R[3 + k] * p[1] + R[6 + k] * p[2]);
            }
        }
    }
    const double* s = me->scale;
    if (s[0] != 1 || s[1] != 1 || s[2] != 1) {
        for (int i = 0; i < nvert; i++) {
            for (int k = 0; k < 3; k++) {
                vert[3 * i + k] = (float)((double)vert[3 * i + k] * s[k]);
            }
        }
    }
}

// centre of mass, inertia, principal frame, re-centred and rotated vertices, aabb; returns
// NULL or the reason the mesh cannot give mass properties
static const char* process(gdnSpecMesh* me, const RawMesh* r, int exact) {
    float* vert = r->vert;
    const int* face = r->face;
    int nface = r->nface;
    transform_vertices(me, vert, r->nvert);

    // area-weighted centroid of the faces
    double facecen[3] = {0, 0, 0}, area = 0, nrm[3], cen[3];
    for (int i = 0; i < nface; i++) {
        const int* f = face + 3 * i;
        double a = area_normal_center(nrm, cen, vert + 3 * f[0], vert + 3 * f[1],
                                      vert + 3 * f[2]);
        for (int k = 0; k < 3; k++) {
            facecen[k] += a * cen[k];
        }
        area += a;
    }
    if (area < GDN_MINVAL) {
        return "mesh surface area is too small";
    }
    for (int k = 0; k < 3; k++) {
        facecen[k] /= area;
    }

    // volume and centre of mass from pyramids (apex facecen): V_i = (c_i - f) . n_i a_i / 3,
    // com_i = 3/4 c_i + 1/4 f; |V_i| unless exact
    double com[3] = {0, 0, 0}, volume = 0;
    for (int i = 0; i < nface; i++) {
        const int* f = face + 3 * i;
        double a = area_normal_center(nrm, cen, vert + 3 * f[0], vert + 3 * f[1],
                                      vert + 3 * f[2]);
        double vec[3] = {cen[0] - facecen[0], cen[1] - facecen[1], cen[2] - facecen[2]};
        double vol = (vec[0] * nrm[0] + vec[1] * nrm[1] + vec[2] * nrm[2]) * a / 3;
        if (!exact) {
            vol = fabs(vol);
        }
        volume += vol;
        for (int k = 0; k < 3; k++) {
            com[k] += vol * (cen[k] * 3.0 / 4.0 + facecen[k] / 4.0);
        }
    }
    if (volume < GDN_MINVAL) {
        return "mesh volume is too small";
    }
    for (int k = 0; k < 3; k++) {
        com[k] /= volume;
        me->pos[k] = com[k];
    }
    for (int i = 0; i < r->nvert; i++) {
        for (int k = 0; k < 3; k++) {
            vert[3 * i + k] = (float)((double)vert[3 * i + k] - com[k]);
        }
    }

    // products of inertia P_ab = sum density V_i / 20 * moment_ab (pyramids from the origin)
    static const int pair[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
    double P[6] = {0, 0, 0, 0, 0, 0};
    volume = 0;
    for (int i = 0; i < nface; i++) {
        const float* D = vert + 3 * face[3 * i];
        const float* E = vert + 3 * face[3 * i + 1];
        const float* F = vert + 3 * face[3 * i + 2];
        double a = area_normal_center(nrm, cen, D, E, F);
        double vol = (cen[0] * nrm[0] + cen[1] * nrm[1] + cen[2] * nrm[2]) * a / 3;
        if (!exact) {
            vol = fabs(vol);
        }
        volume += vol;
        for (int j = 0; j < 6; j++) {
            P[j] += me->density * vol / 20 *
                    (double)pyramid_moment(D, E, F, pair[j][0], pair[j][1]);
        }
    }
    me->volume = volume;

    // inertia tensor, principal axes and moments (decreasing)
    double full[9] = {P[1] + P[2], -P[3],       -P[4],       -P[3],      P[0] + P[2],
                      -P[5],       -P[4],       -P[5],       P[0] + P[1]};
    double eigval[3], quat[4];
    gdn_mj_eig3(eigval, quat, full);
    if (eigval[2] <= 0) {
        return "eigenvalue of mesh inertia must be positive";
    }
    if (eigval[0] + eigval[1] < eigval[2] || eigval[0] + eigval[2] < eigval[1] ||
        eigval[1] + eigval[2] < eigval[0]) {
        return "eigenvalues of mesh inertia violate A + B >= C";
    }

    // equivalent inertia box: b_i = sqrt(6 (I_j + I_k - I_i) / m) / 2
    double mass = volume * me->density;
    me->boxsz[0] = sqrt(6 * (eigval[1] + eigval[2] - eigval[0]) / mass) / 2;
    me->boxsz[1] = sqrt(6 * (eigval[0] + eigval[2] - eigval[1]) / mass) / 2;
    me->boxsz[2] = sqrt(6 * (eigval[0] + eigval[1] - eigval[2]) / mass) / 2;
    memcpy(me->quat, quat, sizeof(me->quat));

    // vertices into the principal frame: v = R(conj(quat)) v; aabb = max |v|
    double neg[4] = {quat[0], -quat[1], -quat[2], -quat[3]}, R[9];
    gdn_quat2mat(R, neg);
    me->aabb[0] = me->aabb[1] = me->aabb[2] = 0;
    for (int i = 0; i < r->nvert; i++) {
        float* v = vert + 3 * i;
        double p[3] = {(double)v[0], (double)v[1], (double)v[2]};
        for (int k = 0; k < 3; k++) {
            v[k] = (float)(R[3 * k] * p[0] + R[3 * k + 1] * p[1] + R[3 * k + 2] * p[2]);
        }
    }
    for (int i = 0; i < r->nvert; i++) {
        for (int k = 0; k < 3; k++) {
            me->aabb[k] = fmax(me->aabb[k], fabs((double)vert[3 * i + k]));
        }
    }
    return NULL;
}

static int compile_mesh(gdnSpec* spec, gdnSpecMesh* me) {
    RawMesh r;
    if (read_raw(spec, me, &r) < 0) {
        return -1;
    }
    int need_graph = spec->compiler.convexhull && me->needhull;
    if (need_graph || r.nface == 0) {
        if (make_hull(spec, me, &r, need_graph) < 0) {
            return -1;
        }
    }
    me->invalid = r.bad_orientation ? "faces have inconsistent orientation" : NULL;
    const char* why = process(me, &r, spec->compiler.exactmeshinertia);
    if (!me->invalid) {
        me->invalid = why;
    }
    me->vert = r.vert;
    me->nvert = r.nvert;
    me->face = r.face;
    me->nface = r.nface;
    return 0;
}

int gdn_mjcf_compile_meshes(gdnSpec* spec) {
    for (int i = 0; i < spec->ngeom; i++) {
        const gdnSpecGeom* g = &spec->geoms[i];
        if (g->type == GDN_GEOM_MESH && (g->contype || g->conaffinity) && g->mesh[0]) {
            int id = gdn_mjcf_mesh_find(spec, g->mesh);
            if (id >= 0) {
                spec->meshes[id].needhull = 1;
            }
        }
    }
    for (int i = 0; i < spec->nmesh; i++) {
        if (compile_mesh(spec, &spec->meshes[i]) < 0) {
            return -1;
        }
    }
    return 0;
}

// ---------------------------------------------------------------- geoms

// pos += R(quat) addpos; quat = normalize(quat * addquat) (MuJoCo's frame accumulation)
static void frame_accumulate(double pos[3], double quat[4], const double addpos[3],
                             const double addquat[4]) {
    double R[9], q[4];
    gdn_quat2mat(R, quat);
    for (int k = 0; k < 3; k++) {
        pos[k] += R[3 * k] * addpos[0] + R[3 * k + 1] * addpos[1] + R[3 * k + 2] * addpos[2];
    }
    gdn_mj_mulquat(q, quat, addquat);
    memcpy(quat, q, sizeof(q));
}

// a primitive geom sized from the mesh's inertia box b (MuJoCo's fitaabb="false" rule)
static int fit_primitive(gdnSpec* spec, gdnSpecGeom* g, const double b[3]) {
    switch (g->type) {
    case GDN_GEOM_SPHERE:
        g->size[0] = (b[0] + b[1] + b[2]) / 3;
        break;
    case GDN_GEOM_CAPSULE:
        g->size[0] = (b[0] + b[1]) / 2;
        g->size[1] = fmax(0, b[2] - g->size[0] / 2);
        break;
    case GDN_GEOM_CYLINDER:
        g->size[0] = (b[0] + b[1]) / 2;
        g->size[1] = b[2];
        break;
    case GDN_GEOM_ELLIPSOID:
    case GDN_GEOM_BOX:
        memcpy(g->size, b, 3 * sizeof(double));
        break;
    default:
        return fail(spec, GDN_ERR_MODEL, g->elem, "invalid geom type for fitting mesh '%s'",
                    g->mesh);
    }
    for (int k = 0; k < 3; k++) {
        g->size[k] *= g->fitscale;
    }
    return 0;
}

int gdn_mjcf_mesh_geom(gdnSpec* spec, gdnSpecGeom* g) {
    g->meshid = -1;
    if (!g->mesh[0]) {
        if (g->type == GDN_GEOM_MESH) {
            return fail(spec, GDN_ERR_MODEL, g->elem, "%s", "mesh geom needs a mesh");
        }
        return 0;
    }
    int id = gdn_mjcf_mesh_find(spec, g->mesh);
    if (id < 0) {
        return fail(spec, GDN_ERR_MODEL, g->elem, "unknown mesh '%s'", g->mesh);
    }
    gdnSpecMesh* me = &spec->meshes[id];
    if (me->invalid) {
        return gdn_xml_error(spec->diag, GDN_ERR_MODEL, g->elem, "%s: %s", me->invalid, me->name);
    }
    if (!isnan(g->fromto[0])) {
        return fail(spec, GDN_ERR_MODEL, g->elem, "%s", "fromto cannot be used with a mesh geom");
    }
    if (g->type != GDN_GEOM_MESH) {
        if (fit_primitive(spec, g, me->boxsz) < 0) {
            return -1;
        }
    } else {
        g->meshid = id;
        memcpy(g->size, me->aabb, sizeof(me->aabb));
        memcpy(g->mesh_boxsz, me->boxsz, sizeof(me->boxsz));
        g->mesh_volume = spec->compiler.exactmeshinertia
                             ? me->volume
                             : me->boxsz[0] * me->boxsz[1] * me->boxsz[2] * 8;
    }
    frame_accumulate(g->pos, g->quat, me->pos, me->quat);
    return 0;
}

int gdn_mjcf_fill_meshes(gdnSpec* spec, const int* geom_order, gdnModel* m) {
    for (int gid = 0; gid < m->ngeom; gid++) {
        const gdnSpecGeom* g = &spec->geoms[geom_order[gid]];
        m->geom_dataid[gid] = g->meshid;
        if (g->meshid >= 0) {
            const double* s = g->size; // = aabb
            m->geom_rbound[gid] = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        }
    }
    if (spec->nmesh == 0) {
        return 0;
    }
    gdnMeshInput* in = gdn_pool_alloc(spec->pool, sizeof(gdnMeshInput) * (size_t)spec->nmesh);
    if (!in) {
        return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
    }
    for (int i = 0; i < spec->nmesh; i++) {
        const gdnSpecMesh* me = &spec->meshes[i];
        double* v = gdn_pool_alloc(spec->pool, sizeof(double) * 3 * (size_t)me->nvert);
        if (!v) {
            return fail(spec, GDN_ERR_MEMORY, NULL, "%s", "out of memory");
        }
        for (int k = 0; k < 3 * me->nvert; k++) {
            v[k] = (double)me->vert[k];
        }
        in[i] = (gdnMeshInput){me->nvert, v, me->nface, me->face, me->ngraph, me->graph};
    }
    gdnStatus st = gdn_model_set_meshes(m, spec->nmesh, in);
    if (st != GDN_OK) {
        return fail(spec, st, NULL, "%s", "cannot store the meshes");
    }
    return 0;
}
