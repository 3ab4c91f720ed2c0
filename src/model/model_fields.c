// SPDX-License-Identifier: Apache-2.0
// The model's values as one list: sizes, options, scalars and every array (from the X-macro).
#include "model/model_fields.h"

#include "model/model_arrays.h"

// a struct member added to gdnModel or gdnOption must also be added to the lists below (the
// arrays of the single allocation are covered by model_arrays.h automatically)
_Static_assert(sizeof(gdnOption) == 248, "gdnOption changed: update gdn_model_fields");
_Static_assert(sizeof(gdnPenalty) == 32, "gdnPenalty changed: update gdn_model_fields");
_Static_assert(sizeof(gdnModel) == 1736, "gdnModel changed: update gdn_model_fields");

// the field type of a C type name, by the pointer type
#define FIELD_TYPE(type) \
    _Generic((type*)0, int*: GDN_FIELD_INT, double*: GDN_FIELD_DOUBLE, char*: GDN_FIELD_CHAR)

int gdn_model_fields(const gdnModel* m, gdnModelField* out, int cap) {
    int k = 0;
#define PUT(label, pointer, n, ftype)                                                    \
    do {                                                                                 \
        if (out && k < cap) {                                                            \
            out[k].name = label;                                                         \
            out[k].ptr = (const void*)(pointer);                                         \
            out[k].count = (size_t)(n);                                                  \
            out[k].type = ftype;                                                         \
        }                                                                                \
        k++;                                                                             \
    } while (0)

    // sizes
    PUT("nq", &m->nq, 1, GDN_FIELD_INT);
    PUT("nv", &m->nv, 1, GDN_FIELD_INT);
    PUT("nu", &m->nu, 1, GDN_FIELD_INT);
    PUT("na", &m->na, 1, GDN_FIELD_INT);
    PUT("nbody", &m->nbody, 1, GDN_FIELD_INT);
    PUT("njnt", &m->njnt, 1, GDN_FIELD_INT);
    PUT("ngeom", &m->ngeom, 1, GDN_FIELD_INT);
    PUT("nsite", &m->nsite, 1, GDN_FIELD_INT);
    PUT("nkey", &m->nkey, 1, GDN_FIELD_INT);
    PUT("nnames", &m->nnames, 1, GDN_FIELD_INT);
    PUT("nvert", &m->nvert, 1, GDN_FIELD_INT);
    PUT("nconmax", &m->nconmax, 1, GDN_FIELD_INT);
    PUT("njmax", &m->njmax, 1, GDN_FIELD_INT);
    PUT("npair", &m->npair, 1, GDN_FIELD_INT);
    PUT("nexclude", &m->nexclude, 1, GDN_FIELD_INT);
    PUT("neq", &m->neq, 1, GDN_FIELD_INT);
    PUT("nmocap", &m->nmocap, 1, GDN_FIELD_INT);
    PUT("nmesh", &m->nmesh, 1, GDN_FIELD_INT);
    PUT("nmeshvert", &m->nmeshvert, 1, GDN_FIELD_INT);
    PUT("nmeshface", &m->nmeshface, 1, GDN_FIELD_INT);
    PUT("nmeshgraph", &m->nmeshgraph, 1, GDN_FIELD_INT);
    PUT("ntendon", &m->ntendon, 1, GDN_FIELD_INT);
    PUT("nwrap", &m->nwrap, 1, GDN_FIELD_INT);
    PUT("nsensor", &m->nsensor, 1, GDN_FIELD_INT);
    PUT("nsensordata", &m->nsensordata, 1, GDN_FIELD_INT);

    // options, penalty contact, statistics
    PUT("opt.timestep", &m->opt.timestep, 1, GDN_FIELD_DOUBLE);
    PUT("opt.gravity", m->opt.gravity, 3, GDN_FIELD_DOUBLE);
    PUT("opt.integrator", &m->opt.integrator, 1, GDN_FIELD_INT);
    PUT("opt.disableflags", &m->opt.disableflags, 1, GDN_FIELD_INT);
    PUT("opt.enableflags", &m->opt.enableflags, 1, GDN_FIELD_INT);
    PUT("opt.solver", &m->opt.solver, 1, GDN_FIELD_INT);
    PUT("opt.iterations", &m->opt.iterations, 1, GDN_FIELD_INT);
    PUT("opt.tolerance", &m->opt.tolerance, 1, GDN_FIELD_DOUBLE);
    PUT("opt.cone", &m->opt.cone, 1, GDN_FIELD_INT);
    PUT("opt.impratio", &m->opt.impratio, 1, GDN_FIELD_DOUBLE);
    PUT("opt.o_margin", &m->opt.o_margin, 1, GDN_FIELD_DOUBLE);
    PUT("opt.o_solref", m->opt.o_solref, GDN_NREF, GDN_FIELD_DOUBLE);
    PUT("opt.o_solimp", m->opt.o_solimp, GDN_NIMP, GDN_FIELD_DOUBLE);
    PUT("opt.mpr_iterations", &m->opt.mpr_iterations, 1, GDN_FIELD_INT);
    PUT("opt.mpr_tolerance", &m->opt.mpr_tolerance, 1, GDN_FIELD_DOUBLE);
    PUT("opt.box_edge_bias", &m->opt.box_edge_bias, 1, GDN_FIELD_DOUBLE);
    PUT("opt.gradyn_solver", &m->opt.gradyn_solver, 1, GDN_FIELD_INT);
    PUT("opt.kamino_restitution", &m->opt.kamino_restitution, 1, GDN_FIELD_DOUBLE);
    PUT("opt.magnetic", m->opt.magnetic, 3, GDN_FIELD_DOUBLE);
    PUT("opt.wind", m->opt.wind, 3, GDN_FIELD_DOUBLE);
    PUT("opt.density", &m->opt.density, 1, GDN_FIELD_DOUBLE);
    PUT("opt.viscosity", &m->opt.viscosity, 1, GDN_FIELD_DOUBLE);
    PUT("penalty.enabled", &m->penalty.enabled, 1, GDN_FIELD_INT);
    PUT("penalty.height", &m->penalty.height, 1, GDN_FIELD_DOUBLE);
    PUT("penalty.stiffness", &m->penalty.stiffness, 1, GDN_FIELD_DOUBLE);
    PUT("penalty.damping", &m->penalty.damping, 1, GDN_FIELD_DOUBLE);
    PUT("stat_meaninertia", &m->stat_meaninertia, 1, GDN_FIELD_DOUBLE);

    // the arrays of the single allocation, with the allocator's count expressions
    const size_t nq = (size_t)m->nq, nv = (size_t)m->nv, nu = (size_t)m->nu, na = (size_t)m->na;
    const size_t nbody = (size_t)m->nbody, njnt = (size_t)m->njnt, ngeom = (size_t)m->ngeom;
    const size_t nsite = (size_t)m->nsite, nkey = (size_t)m->nkey, nnames = (size_t)m->nnames;
    const size_t npair = (size_t)m->npair, nexclude = (size_t)m->nexclude;
    const size_t neq = (size_t)m->neq, nmocap = (size_t)m->nmocap;
    const size_t ntendon = (size_t)m->ntendon, nwrap = (size_t)m->nwrap;
    const size_t nsensor = (size_t)m->nsensor;
#define X(type, field, count) PUT(#field, m->field, count, FIELD_TYPE(type));
    GDN_MODEL_ARRAYS(X)
#undef X

    // arrays with their own allocation: collision-mesh vertices, convex meshes
    const size_t nmesh = (size_t)m->nmesh;
    PUT("vert_pos", m->vert_pos, 3 * (size_t)m->nvert, GDN_FIELD_DOUBLE);
    PUT("mesh_vertadr", m->mesh_vertadr, nmesh, GDN_FIELD_INT);
    PUT("mesh_vertnum", m->mesh_vertnum, nmesh, GDN_FIELD_INT);
    PUT("mesh_faceadr", m->mesh_faceadr, nmesh, GDN_FIELD_INT);
    PUT("mesh_facenum", m->mesh_facenum, nmesh, GDN_FIELD_INT);
    PUT("mesh_graphadr", m->mesh_graphadr, nmesh, GDN_FIELD_INT);
    PUT("mesh_vert", m->mesh_vert, 3 * (size_t)m->nmeshvert, GDN_FIELD_DOUBLE);
    PUT("mesh_face", m->mesh_face, 3 * (size_t)m->nmeshface, GDN_FIELD_INT);
    PUT("mesh_graph", m->mesh_graph, (size_t)m->nmeshgraph, GDN_FIELD_INT);
#undef PUT
    return k;
}
