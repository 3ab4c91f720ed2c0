// SPDX-License-Identifier: Apache-2.0
// The model's convex-mesh arrays: one allocation holding every mesh_* array.
#include "model/mesh_model.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// a graph is consistent: sizes 2 + 3 numvert + 6 numface, ids within the mesh
static int graph_valid(const gdnMeshInput* me) {
    if (me->ngraph == 0) {
        return 1;
    }
    if (me->ngraph < 2 || !me->graph) {
        return 0;
    }
    int numvert = me->graph[0], numface = me->graph[1];
    if (numvert < 0 || numface < 0 || numvert > me->nvert ||
        (int64_t)2 + 3 * (int64_t)numvert + 6 * (int64_t)numface != me->ngraph) {
        return 0;
    }
    const int* edgeadr = me->graph + 2;
    const int* globalid = edgeadr + numvert;
    const int* localid = globalid + numvert;
    const int* faceid = localid + numvert + 3 * numface;
    int nedge = numvert + 3 * numface;
    for (int i = 0; i < numvert; i++) {
        if (edgeadr[i] < 0 || edgeadr[i] >= nedge || globalid[i] < 0 ||
            globalid[i] >= me->nvert) {
            return 0;
        }
    }
    for (int i = 0; i < nedge; i++) {
        if (localid[i] < -1 || localid[i] >= numvert) {
            return 0;
        }
    }
    if (nedge > 0 && localid[nedge - 1] != -1) {
        return 0;
    }
    for (int i = 0; i < 3 * numface; i++) {
        if (faceid[i] < 0 || faceid[i] >= me->nvert) {
            return 0;
        }
    }
    return 1;
}

gdnStatus gdn_model_set_meshes(gdnModel* m, int nmesh, const gdnMeshInput* meshes) {
    if (!m || nmesh < 0 || (nmesh > 0 && !meshes)) {
        return GDN_ERR_ARG;
    }
    int64_t nvert = 0, nface = 0, ngraph = 0;
    for (int i = 0; i < nmesh; i++) {
        const gdnMeshInput* me = &meshes[i];
        if (me->nvert < 0 || me->nface < 0 || me->ngraph < 0 || (me->nvert && !me->vert) ||
            (me->nface && !me->face) || !graph_valid(me)) {
            return GDN_ERR_ARG;
        }
        for (int k = 0; k < 3 * me->nface; k++) {
            if (me->face[k] < 0 || me->face[k] >= me->nvert) {
                return GDN_ERR_ARG;
            }
        }
        nvert += me->nvert;
        nface += me->nface;
        ngraph += me->ngraph;
    }
    if (nvert > INT_MAX / 3 || nface > INT_MAX / 3 || ngraph > INT_MAX) {
        return GDN_ERR_ARG;
    }

    // layout: 5 int arrays of nmesh, vert (doubles first for alignment), face, graph
    size_t bytes = sizeof(double) * 3 * (size_t)nvert + sizeof(int) * (5 * (size_t)nmesh +
                   3 * (size_t)nface + (size_t)ngraph);
    unsigned char* buf = malloc(bytes ? bytes : 1);
    if (!buf) {
        return GDN_ERR_MEMORY;
    }
    free(m->mesh_buffer_);
    m->mesh_buffer_ = buf;
    m->mesh_vert = (double*)(void*)buf;
    int* ip = (int*)(void*)(buf + sizeof(double) * 3 * (size_t)nvert);
    m->mesh_vertadr = ip;
    m->mesh_vertnum = ip + nmesh;
    m->mesh_faceadr = ip + 2 * nmesh;
    m->mesh_facenum = ip + 3 * nmesh;
    m->mesh_graphadr = ip + 4 * nmesh;
    m->mesh_face = ip + 5 * nmesh;
    m->mesh_graph = m->mesh_face + 3 * nface;
    m->nmesh = nmesh;
    m->nmeshvert = (int)nvert;
    m->nmeshface = (int)nface;
    m->nmeshgraph = (int)ngraph;

    int vadr = 0, fadr = 0, gadr = 0;
    for (int i = 0; i < nmesh; i++) {
        const gdnMeshInput* me = &meshes[i];
        m->mesh_vertadr[i] = vadr;
        m->mesh_vertnum[i] = me->nvert;
        m->mesh_faceadr[i] = fadr;
        m->mesh_facenum[i] = me->nface;
        m->mesh_graphadr[i] = me->ngraph ? gadr : -1;
        if (me->nvert) {
            memcpy(m->mesh_vert + 3 * vadr, me->vert, sizeof(double) * 3 * (size_t)me->nvert);
        }
        if (me->nface) {
            memcpy(m->mesh_face + 3 * fadr, me->face, sizeof(int) * 3 * (size_t)me->nface);
        }
        if (me->ngraph) {
            memcpy(m->mesh_graph + gadr, me->graph, sizeof(int) * (size_t)me->ngraph);
        }
        vadr += me->nvert;
        fadr += me->nface;
        gadr += me->ngraph;
    }
    return GDN_OK;
}
