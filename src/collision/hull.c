// SPDX-License-Identifier: Apache-2.0
// Quickhull in 3D (Barber, Dobkin, Huhdanpaa 1996) with outside sets and a distance tolerance.
#include "collision/hull.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"

#define HULL_REL_EPS 1e-10 // plane tolerance relative to the point set's extent

typedef struct {
    int v[3];         // vertices, counter-clockwise from outside
    int nb[3];        // neighbour across edge (v[k], v[k+1])
    double n[3], off; // outward unit normal, n . x = off on the plane
    int outside;      // first point of the outside set (-1: empty)
    int alive;
    int visited;
} Face;

typedef struct {
    const double* p;
    int n;
    double eps;
    Face* f;
    int nf, capf;
    int* next; // outside-set links per point
    int* stack;
    int* horizon; // (face, edge) pairs
    int nhorizon, caphorizon;
} Hull;

static double face_dist(const Hull* h, const Face* f, int i) {
    return gdn_dot3(f->n, h->p + 3 * i) - f->off;
}

// new face (a, b, c) with its plane; -1 when memory runs out
static int add_face(Hull* h, int a, int b, int c) {
    if (h->nf == h->capf) {
        int cap = h->capf ? 2 * h->capf : 64;
        Face* nf = realloc(h->f, sizeof(Face) * (size_t)cap);
        if (!nf) {
            return -1;
        }
        h->f = nf;
        h->capf = cap;
    }
    Face* f = &h->f[h->nf];
    f->v[0] = a;
    f->v[1] = b;
    f->v[2] = c;
    f->nb[0] = f->nb[1] = f->nb[2] = -1;
    double e1[3], e2[3];
    gdn_sub3(e1, h->p + 3 * b, h->p + 3 * a);
    gdn_sub3(e2, h->p + 3 * c, h->p + 3 * a);
    gdn_cross3(f->n, e1, e2);
    double len = gdn_norm3(f->n);
    if (len > 0) {
        gdn_scl3(f->n, f->n, 1 / len);
    }
    f->off = gdn_dot3(f->n, h->p + 3 * a);
    f->outside = -1;
    f->alive = 1;
    f->visited = 0;
    return h->nf++;
}

// put point i in the outside set of the face among faces[0..nfaces) it is farthest above
static void assign_point(Hull* h, int i, const int* faces, int nfaces) {
    int best = -1;
    double best_d = h->eps;
    for (int k = 0; k < nfaces; k++) {
        double dd = face_dist(h, &h->f[faces[k]], i);
        if (dd > best_d) {
            best_d = dd;
            best = faces[k];
        }
    }
    if (best >= 0) {
        h->next[i] = h->f[best].outside;
        h->f[best].outside = i;
    }
}

// link faces fa and fb along their shared edge (found by vertex ids)
static void link_edge(Hull* h, int fa, int a, int b, int fb) {
    Face* f = &h->f[fa];
    for (int k = 0; k < 3; k++) {
        if (f->v[k] == a && f->v[(k + 1) % 3] == b) {
            f->nb[k] = fb;
        }
    }
}

static int fail(char* cause, int size, const char* text) {
    if (cause && size > 0) {
        snprintf(cause, (size_t)size, "%s", text);
    }
    return -1;
}

// the initial tetrahedron from extreme points; -1 with the cause for degenerate input
static int initial_simplex(Hull* h, int s[4], char* cause, int cause_size) {
    // the two farthest of the six axis extremes
    int ext[6];
    for (int k = 0; k < 3; k++) {
        ext[2 * k] = ext[2 * k + 1] = 0;
        for (int i = 1; i < h->n; i++) {
            if (h->p[3 * i + k] < h->p[3 * ext[2 * k] + k]) {
                ext[2 * k] = i;
            }
            if (h->p[3 * i + k] > h->p[3 * ext[2 * k + 1] + k]) {
                ext[2 * k + 1] = i;
            }
        }
    }
    double best = -1, d[3];
    for (int a = 0; a < 6; a++) {
        for (int b = a + 1; b < 6; b++) {
            gdn_sub3(d, h->p + 3 * ext[a], h->p + 3 * ext[b]);
            if (gdn_dot3(d, d) > best) {
                best = gdn_dot3(d, d);
                s[0] = ext[a];
                s[1] = ext[b];
            }
        }
    }
    h->eps = HULL_REL_EPS * sqrt(best);
    if (!(sqrt(best) > 0)) {
        return fail(cause, cause_size, "degenerate mesh: all vertices coincide");
    }

    // farthest from the line s0-s1
    double u[3];
    gdn_sub3(u, h->p + 3 * s[1], h->p + 3 * s[0]);
    gdn_normalize3(u);
    best = -1;
    for (int i = 0; i < h->n; i++) {
        double w[3], c[3];
        gdn_sub3(w, h->p + 3 * i, h->p + 3 * s[0]);
        gdn_cross3(c, u, w);
        if (gdn_norm3(c) > best) {
            best = gdn_norm3(c);
            s[2] = i;
        }
    }
    if (best <= h->eps) {
        return fail(cause, cause_size, "degenerate mesh: all vertices are collinear");
    }

    // farthest from the plane s0, s1, s2
    double e1[3], e2[3], nrm[3];
    gdn_sub3(e1, h->p + 3 * s[1], h->p + 3 * s[0]);
    gdn_sub3(e2, h->p + 3 * s[2], h->p + 3 * s[0]);
    gdn_cross3(nrm, e1, e2);
    gdn_normalize3(nrm);
    best = 0;
    double signed_best = 0;
    for (int i = 0; i < h->n; i++) {
        double w[3];
        gdn_sub3(w, h->p + 3 * i, h->p + 3 * s[0]);
        double dd = gdn_dot3(nrm, w);
        if (fabs(dd) > best) {
            best = fabs(dd);
            signed_best = dd;
            s[3] = i;
        }
    }
    if (best <= h->eps) {
        return fail(cause, cause_size,
                    "degenerate mesh: all vertices are coplanar (a flat mesh has no volume)");
    }

    // orient so that s3 lies below the face (s0, s1, s2)
    if (signed_best > 0) {
        int t = s[1];
        s[1] = s[2];
        s[2] = t;
    }
    return 0;
}

// collect the visible faces from f (DFS) and the horizon edges (face, edge) beyond them
static int find_horizon(Hull* h, int start, int pt, int* nvisible) {
    int top = 0;
    h->nhorizon = 0;
    *nvisible = 0;
    h->stack[top++] = start;
    h->f[start].visited = 1;
    while (top > 0) {
        int fi = h->stack[--top];
        h->stack[2 * h->n + 32 + (*nvisible)++] = fi;
        for (int k = 0; k < 3; k++) {
            int nb = h->f[fi].nb[k];
            if (nb < 0) {
                return -1;
            }
            if (h->f[nb].visited) {
                continue;
            }
            if (face_dist(h, &h->f[nb], pt) > h->eps) {
                h->f[nb].visited = 1;
                h->stack[top++] = nb;
            } else {
                if (h->nhorizon == h->caphorizon) {
                    int cap = h->caphorizon ? 2 * h->caphorizon : 64;
                    int* nh = realloc(h->horizon, sizeof(int) * 2 * (size_t)cap);
                    if (!nh) {
                        return -1;
                    }
                    h->horizon = nh;
                    h->caphorizon = cap;
                }
                h->horizon[2 * h->nhorizon] = fi;
                h->horizon[2 * h->nhorizon + 1] = k;
                h->nhorizon++;
            }
        }
    }
    return 0;
}

// add point pt (farthest outside face fi): replace the visible faces by a cone to the horizon
static int add_point(Hull* h, int fi, int pt) {
    int nvisible;
    if (find_horizon(h, fi, pt, &nvisible) < 0 || h->nhorizon < 3) {
        return -1;
    }
    int first_new = h->nf;
    for (int e = 0; e < h->nhorizon; e++) {
        int vf = h->horizon[2 * e], k = h->horizon[2 * e + 1];
        int a = h->f[vf].v[k], b = h->f[vf].v[(k + 1) % 3];
        int beyond = h->f[vf].nb[k];
        int nf = add_face(h, a, b, pt);
        if (nf < 0) {
            return -1;
        }
        h->f[nf].nb[0] = beyond;
        link_edge(h, beyond, b, a, nf);
    }

    // neighbouring cone faces: face (a, b, p) meets (b, c, p) along (b, p)
    int nnew = h->nf - first_new;
    for (int i = 0; i < nnew; i++) {
        Face* f = &h->f[first_new + i];
        for (int j = 0; j < nnew; j++) {
            Face* g = &h->f[first_new + j];
            if (g->v[0] == f->v[1]) {
                f->nb[1] = first_new + j;
                g->nb[2] = first_new + i;
            }
        }
    }
    for (int i = 0; i < nnew; i++) {
        if (h->f[first_new + i].nb[1] < 0 || h->f[first_new + i].nb[2] < 0) {
            return -1;
        }
    }

    // retire the visible faces and hand their outside points to the new faces
    int* newfaces = h->stack; // reuse: the visible list lives at stack + 2 n + 32
    for (int i = 0; i < nnew; i++) {
        newfaces[i] = first_new + i;
    }
    for (int v = 0; v < nvisible; v++) {
        Face* f = &h->f[h->stack[2 * h->n + 32 + v]];
        f->alive = 0;
        for (int i = f->outside; i >= 0;) {
            int nxt = h->next[i];
            if (i != pt) {
                assign_point(h, i, newfaces, nnew);
            }
            i = nxt;
        }
        f->outside = -1;
    }
    return 0;
}

gdnStatus gdn_hull_build(const double* points, int n, gdnHull* hull, char* cause,
                         int cause_size) {
    memset(hull, 0, sizeof(*hull));
    if (cause && cause_size > 0) {
        cause[0] = '\0';
    }
    if (n < 4 || !points) {
        fail(cause, cause_size, "a convex mesh needs at least 4 vertices");
        return GDN_ERR_MODEL;
    }
    for (int i = 0; i < 3 * n; i++) {
        if (!isfinite(points[i])) {
            fail(cause, cause_size, "non-finite mesh vertex");
            return GDN_ERR_MODEL;
        }
    }
    Hull h = {.p = points, .n = n};
    h.next = malloc(sizeof(int) * (size_t)n);
    h.stack = malloc(sizeof(int) * (4 * (size_t)n + 64));
    gdnStatus st = GDN_ERR_MEMORY;
    int s[4] = {0, 1, 2, 3};
    if (!h.next || !h.stack) {
        goto done;
    }
    if (initial_simplex(&h, s, cause, cause_size) < 0) {
        st = GDN_ERR_MODEL;
        goto done;
    }

    // tetrahedron: (s0, s1, s2) with s3 below, and the three side faces
    int tri[4][3] = {{s[0], s[1], s[2]}, {s[0], s[3], s[1]}, {s[1], s[3], s[2]},
                     {s[2], s[3], s[0]}};
    for (int k = 0; k < 4; k++) {
        if (add_face(&h, tri[k][0], tri[k][1], tri[k][2]) < 0) {
            goto done;
        }
    }
    for (int a = 0; a < 4; a++) {
        for (int b = 0; b < 4; b++) {
            for (int k = 0; k < 3; k++) {
                link_edge(&h, a, h.f[b].v[(k + 1) % 3], h.f[b].v[k], b);
            }
        }
    }
    int all[4] = {0, 1, 2, 3};
    for (int i = 0; i < n; i++) {
        if (i != s[0] && i != s[1] && i != s[2] && i != s[3]) {
            assign_point(&h, i, all, 4);
        }
    }

    // expand by the farthest outside point of each face with a non-empty outside set
    for (int fi = 0; fi < h.nf; fi++) {
        if (!h.f[fi].alive || h.f[fi].outside < 0) {
            continue;
        }
        int pt = h.f[fi].outside;
        double best = face_dist(&h, &h.f[fi], pt);
        for (int i = h.next[pt]; i >= 0; i = h.next[i]) {
            double dd = face_dist(&h, &h.f[fi], i);
            if (dd > best) {
                best = dd;
                pt = i;
            }
        }
        for (int k = 0; k < h.nf; k++) {
            h.f[k].visited = 0;
        }
        if (add_point(&h, fi, pt) < 0) {
            fail(cause, cause_size, "convex hull failed (numerically degenerate vertices)");
            st = h.capf ? GDN_ERR_MODEL : GDN_ERR_MEMORY;
            goto done;
        }
    }

    // output: live faces, their vertices ascending
    int nface = 0;
    for (int k = 0; k < h.nf; k++) {
        nface += h.f[k].alive;
    }
    char* used = calloc((size_t)n, 1);
    hull->face = malloc(sizeof(int) * 3 * (size_t)nface);
    hull->vert = malloc(sizeof(int) * (size_t)n);
    if (!used || !hull->face || !hull->vert) {
        free(used);
        gdn_hull_free(hull);
        goto done;
    }
    for (int k = 0; k < h.nf; k++) {
        if (h.f[k].alive) {
            for (int j = 0; j < 3; j++) {
                hull->face[3 * hull->nface + j] = h.f[k].v[j];
                used[h.f[k].v[j]] = 1;
            }
            hull->nface++;
        }
    }
    for (int i = 0; i < n; i++) {
        if (used[i]) {
            hull->vert[hull->nvert++] = i;
        }
    }
    free(used);
    st = GDN_OK;
done:
    free(h.f);
    free(h.next);
    free(h.stack);
    free(h.horizon);
    return st;
}

void gdn_hull_free(gdnHull* hull) {
    free(hull->vert);
    free(hull->face);
    memset(hull, 0, sizeof(*hull));
}

int gdn_hull_graph_size(const gdnHull* hull) { return 2 + 3 * hull->nvert + 6 * hull->nface; }

void gdn_hull_graph(const gdnHull* hull, int* graph) {
    int nv = hull->nvert, nf = hull->nface;
    graph[0] = nv;
    graph[1] = nf;
    int* edgeadr = graph + 2;
    int* globalid = graph + 2 + nv;
    int* localid = graph + 2 + 2 * nv;
    int* faceid = graph + 2 + 3 * nv + 3 * nf;
    memcpy(globalid, hull->vert, sizeof(int) * (size_t)nv);
    memcpy(faceid, hull->face, sizeof(int) * 3 * (size_t)nf);

    // neighbours of each vertex: the other vertices of its faces, in face order, once each
    int adr = 0;
    for (int i = 0; i < nv; i++) {
        edgeadr[i] = adr;
        int start = adr;
        for (int f = 0; f < nf; f++) {
            const int* t = hull->face + 3 * f;
            if (t[0] != globalid[i] && t[1] != globalid[i] && t[2] != globalid[i]) {
                continue;
            }
            for (int k = 0; k < 3; k++) {
                if (t[k] == globalid[i]) {
                    continue;
                }
                // local id by binary search (globalid ascending)
                int lo = 0, hi = nv - 1;
                while (lo < hi) {
                    int mid = (lo + hi) / 2;
                    if (globalid[mid] < t[k]) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                int seen = 0;
                for (int j = start; j < adr; j++) {
                    seen |= localid[j] == lo;
                }
                if (!seen) {
                    localid[adr++] = lo;
                }
            }
        }
        localid[adr++] = -1;
    }
}
