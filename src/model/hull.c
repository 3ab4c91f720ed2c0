// SPDX-License-Identifier: Apache-2.0
// Convex hull of a mesh's vertices with Qhull (libqhull_r), laid out as MuJoCo's hull graph.
#define _POSIX_C_SOURCE 200809L // open_memstream: Qhull's messages become the error cause
#include "model/hull.h"

#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "math/vec.h"

// no-volume test relative to the extent: round-off level only (Qhull judges anything above it;
// it accepts a tetrahedron 2e-14 of its extent thin)
#define HULL_REL_EPS 1e-14

// why the points span no volume, or NULL when they do: with a = the farthest pair of the six
// axis extremes, the largest distance from the line through a, then from the plane through the
// three, each compared with 1e-10 of the extent
static const char* no_volume(const double* p, int n) {
    int ext[6] = {0, 0, 0, 0, 0, 0};
    for (int k = 0; k < 3; k++) {
        for (int i = 1; i < n; i++) {
            ext[2 * k] = p[3 * i + k] < p[3 * ext[2 * k] + k] ? i : ext[2 * k];
            ext[2 * k + 1] = p[3 * i + k] > p[3 * ext[2 * k + 1] + k] ? i : ext[2 * k + 1];
        }
    }
    int a = 0, b = 0;
    double extent2 = 0, d[3];
    for (int i = 0; i < 6; i++) {
        for (int j = i + 1; j < 6; j++) {
            gdn_sub3(d, p + 3 * ext[i], p + 3 * ext[j]);
            if (gdn_dot3(d, d) > extent2) {
                extent2 = gdn_dot3(d, d);
                a = ext[i];
                b = ext[j];
            }
        }
    }
    if (!(extent2 > 0)) {
        return "degenerate mesh: all vertices coincide";
    }
    const double eps = HULL_REL_EPS * sqrt(extent2);

    // farthest point c from the line a-b
    double u[3], w[3], x[3];
    gdn_sub3(u, p + 3 * b, p + 3 * a);
    gdn_normalize3(u);
    double best = 0;
    int c = a;
    for (int i = 0; i < n; i++) {
        gdn_sub3(w, p + 3 * i, p + 3 * a);
        gdn_cross3(x, u, w);
        if (gdn_norm3(x) > best) {
            best = gdn_norm3(x);
            c = i;
        }
    }
    if (best <= eps) {
        return "degenerate mesh: all vertices are collinear";
    }

    // largest distance from the plane a, b, c
    double e[3], nrm[3];
    gdn_sub3(e, p + 3 * c, p + 3 * a);
    gdn_cross3(nrm, u, e);
    gdn_normalize3(nrm);
    best = 0;
    for (int i = 0; i < n; i++) {
        gdn_sub3(w, p + 3 * i, p + 3 * a);
        best = fmax(best, fabs(gdn_dot3(nrm, w)));
    }
    if (best <= eps) {
        return "degenerate mesh: all vertices are coplanar (a flat mesh has no volume)";
    }
    return NULL;
}

// Qhull's triangulated hull of the points (x, y, z rows) with its vertex-to-facet sets; 0 ok,
// else Qhull's error code (its message went to qh's error file)
static int run_qhull(qhT* qh, double* xyz, int n, FILE* messages) {
    char options[] = "qhull Qt";
    qh_zero(qh, messages);
    qh_init_A(qh, stdin, messages, messages, 0, NULL);
    int code = setjmp(qh->errexit);
    if (code == 0) {
        qh->NOerrexit = False;
        qh_initflags(qh, options);
        qh_init_B(qh, xyz, n, 3, False);
        qh_qhull(qh);
        qh_triangulate(qh);
        qh_vertexneighbors(qh);
    }
    qh->NOerrexit = True;
    return code;
}

// the graph from Qhull's structures: per vertex (list order) the other vertices of its facets
// (facet-set order, then facet-vertex order), once each; faces in facet-list order with the
// first two vertices swapped on top-oriented facets so that every face is counter-clockwise
// seen from outside. -1 when a vertex is not an input point (should not occur)
static int fill_graph(qhT* qh, gdnHull* hull, int n) {
    const int nvert = hull->nvert, nface = hull->nface, nedge = nvert + 3 * nface;
    int* edgeadr = hull->graph + 2;
    int* edge = hull->graph + 2 + 2 * nvert;
    vertexT *vertex, *other, **otherp;
    facetT *facet, **facetp;

    // neighbours as point ids first
    int i = 0, adr = 0;
    FORALLvertices {
        int pid = qh_pointid(qh, vertex->point);
        if (pid < 0 || pid >= n || i >= nvert) {
            return -1;
        }
        edgeadr[i] = adr;
        hull->vert[i++] = pid;
        const int start = adr;
        FOREACHfacet_(vertex->neighbors) {
            FOREACHsetelement_(vertexT, facet->vertices, other) {
                int oid = qh_pointid(qh, other->point);
                int seen = oid == pid;
                for (int j = start; j < adr && !seen; j++) {
                    seen = edge[j] == oid;
                }
                if (!seen) {
                    if (adr >= nedge) {
                        return -1;
                    }
                    edge[adr++] = oid;
                }
            }
        }
        if (adr >= nedge) {
            return -1;
        }
        edge[adr++] = -1;
    }
    if (i != nvert || adr != nedge) {
        return -1;
    }

    // point ids -> local ids
    for (int e = 0; e < adr; e++) {
        if (edge[e] < 0) {
            continue;
        }
        int local = 0;
        while (local < nvert && hull->vert[local] != edge[e]) {
            local++;
        }
        if (local == nvert) {
            return -1;
        }
        edge[e] = local;
    }

    // triangles
    int f = 0;
    FORALLfacets {
        if (f >= nface || qh_setsize(qh, facet->vertices) != 3) {
            return -1;
        }
        const int slot[3] = {facet->toporient ? 1 : 0, facet->toporient ? 0 : 1, 2};
        int k = 0;
        FOREACHsetelement_(vertexT, facet->vertices, other) {
            hull->face[3 * f + slot[k++]] = qh_pointid(qh, other->point);
        }
        f++;
    }
    return f == nface ? 0 : -1;
}

gdnStatus gdn_hull_build(const double* points, int n, gdnHull* hull, char* cause,
                         int cause_size) {
    memset(hull, 0, sizeof(*hull));
    if (cause && cause_size > 0) {
        cause[0] = '\0';
    }
    if (n < 4 || !points) {
        return gdn_fail(GDN_ERR_MODEL, cause, cause_size,
                        "a convex mesh needs at least 4 vertices");
    }
    for (int i = 0; i < 3 * n; i++) {
        if (!isfinite(points[i])) {
            return gdn_fail(GDN_ERR_MODEL, cause, cause_size, "non-finite mesh vertex");
        }
    }
    const char* flat = no_volume(points, n);
    if (flat) {
        return gdn_fail(GDN_ERR_MODEL, cause, cause_size, "%s", flat);
    }

    // Qhull works on its own copy; its messages are collected in memory
    double* xyz = malloc(sizeof(double) * 3 * (size_t)n);
    char* text = NULL;
    size_t text_size = 0;
    FILE* messages = open_memstream(&text, &text_size);
    if (!xyz || !messages) {
        free(xyz);
        if (messages) {
            fclose(messages);
        }
        free(text);
        return gdn_fail(GDN_ERR_MEMORY, cause, cause_size, "out of memory");
    }
    memcpy(xyz, points, sizeof(double) * 3 * (size_t)n);
    qhT qh_storage;
    qhT* qh = &qh_storage;
    gdnStatus status = GDN_OK;
    if (run_qhull(qh, xyz, n, messages) != 0) {
        status = GDN_ERR_MODEL;
    } else {
        hull->nvert = qh->num_vertices;
        hull->nface = qh->num_facets;
        hull->graph = malloc(sizeof(int) * (size_t)gdn_hull_graph_size(hull));
        if (!hull->graph) {
            status = GDN_ERR_MEMORY;
        } else {
            hull->graph[0] = hull->nvert;
            hull->graph[1] = hull->nface;
            hull->vert = hull->graph + 2 + hull->nvert;
            hull->face = hull->graph + 2 + 3 * hull->nvert + 3 * hull->nface;
            if (fill_graph(qh, hull, n) != 0) {
                fprintf(messages, "Qhull returned a hull that is not a triangulated polytope");
                status = GDN_ERR_MODEL;
            }
        }
    }
    int curlong, totlong;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    fclose(messages);
    free(xyz);

    // Qhull's message (first line) as the cause
    if (status != GDN_OK) {
        gdn_hull_free(hull);
        if (status == GDN_ERR_MEMORY) {
            gdn_fail(status, cause, cause_size, "out of memory");
        } else if (cause && cause_size > 0) {
            const char* msg = text && text[0] ? text : "unknown error";
            size_t len = strcspn(msg, "\n");
            snprintf(cause, (size_t)cause_size, "convex hull failed: %.*s", (int)len, msg);
        }
    }
    free(text);
    return status;
}

void gdn_hull_free(gdnHull* hull) {
    free(hull->graph);
    memset(hull, 0, sizeof(*hull));
}

int gdn_hull_graph_size(const gdnHull* hull) { return 2 + 3 * hull->nvert + 6 * hull->nface; }

void gdn_hull_graph(const gdnHull* hull, int* graph) {
    memcpy(graph, hull->graph, sizeof(int) * (size_t)gdn_hull_graph_size(hull));
}
