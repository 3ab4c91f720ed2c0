// SPDX-License-Identifier: Apache-2.0
// A gdnModel copied field by field from MuJoCo's compiled mjModel (same names, same layout),
// so the dynamics can be tested against MuJoCo independently of gradyn's MJCF loader.
#include "oracle/from_mujoco.h"

#include <stdlib.h>
#include <string.h>

#include "model/mesh_model.h"
#include "model/model_alloc.h"

// same-typed array: plain copy
#define COPY(field, count) \
    memcpy(g->field, m->field, sizeof(*g->field) * (size_t)(count))

// differently typed array (mjtByte or float to int or double): element-wise conversion
#define CONVERT(field, count)                        \
    for (int i_ = 0; i_ < (count); i_++) {           \
        g->field[i_] = m->field[i_];                  \
    }

// MuJoCo's meshes (float vertices, faces, qhull graphs) into the model's mesh_* arrays
static gdnStatus copy_meshes(gdnModel* g, const mjModel* m) {
    if (m->nmesh == 0) {
        return GDN_OK;
    }
    gdnMeshInput* in = calloc((size_t)m->nmesh, sizeof(gdnMeshInput));
    double* vert = malloc(sizeof(double) * 3 * (size_t)(m->nmeshvert > 0 ? m->nmeshvert : 1));
    gdnStatus st = GDN_ERR_MEMORY;
    if (in && vert) {
        for (int i = 0; i < 3 * m->nmeshvert; i++) {
            vert[i] = m->mesh_vert[i];
        }
        for (int i = 0; i < m->nmesh; i++) {
            int gadr = m->mesh_graphadr[i];
            int gend = m->nmeshgraph;
            for (int k = 0; k < m->nmesh; k++) {
                if (gadr >= 0 && m->mesh_graphadr[k] > gadr && m->mesh_graphadr[k] < gend) {
                    gend = m->mesh_graphadr[k];
                }
            }
            in[i] = (gdnMeshInput){
                .nvert = m->mesh_vertnum[i],
                .vert = vert + 3 * m->mesh_vertadr[i],
                .nface = m->mesh_facenum[i],
                .face = m->mesh_face + 3 * m->mesh_faceadr[i],
                .ngraph = gadr >= 0 ? gend - gadr : 0,
                .graph = gadr >= 0 ? m->mesh_graph + gadr : NULL,
            };
        }
        st = gdn_model_set_meshes(g, m->nmesh, in);
    }
    free(in);
    free(vert);
    return st;
}

gdnModel* gdn_model_from_mujoco(const mjModel* m) {
    gdnModelSizes sizes = {
        .nq = m->nq,
        .nv = m->nv,
        .nu = m->nu,
        .na = m->na,
        .nbody = m->nbody,
        .njnt = m->njnt,
        .ngeom = m->ngeom,
        .nsite = m->nsite,
        .nkey = m->nkey,
        .nnames = m->nnames,
        .npair = m->npair,
        .nexclude = m->nexclude,
        .neq = m->neq,
        .nmocap = m->nmocap,
    };
    gdnModel* g = gdn_model_alloc(&sizes);
    if (!g) {
        return NULL;
    }
    g->opt.timestep = m->opt.timestep;
    memcpy(g->opt.gravity, m->opt.gravity, sizeof(g->opt.gravity));
    g->opt.integrator = GDN_INT_EULER;
    g->opt.disableflags = m->opt.disableflags;
    g->opt.enableflags = m->opt.enableflags;
    g->opt.solver = m->opt.solver;
    g->opt.iterations = m->opt.iterations;
    g->opt.tolerance = m->opt.tolerance;
    g->opt.cone = m->opt.cone;
    g->opt.impratio = m->opt.impratio;
    g->opt.o_margin = m->opt.o_margin;
    memcpy(g->opt.o_solref, m->opt.o_solref, sizeof(g->opt.o_solref));
    memcpy(g->opt.o_solimp, m->opt.o_solimp, sizeof(g->opt.o_solimp));
    g->opt.mpr_iterations = m->opt.mpr_iterations;
    g->opt.mpr_tolerance = m->opt.mpr_tolerance;
    g->stat_meaninertia = m->stat.meaninertia;

    int nb = m->nbody, nj = m->njnt, nv = m->nv, ng = m->ngeom, ns = m->nsite, nu = m->nu;
    int nk = m->nkey;
    COPY(body_parentid, nb);
    COPY(body_rootid, nb);
    COPY(body_weldid, nb);
    COPY(body_mocapid, nb);
    COPY(body_jntnum, nb);
    COPY(body_jntadr, nb);
    COPY(body_dofnum, nb);
    COPY(body_dofadr, nb);
    COPY(body_geomnum, nb);
    COPY(body_geomadr, nb);
    COPY(body_pos, 3 * nb);
    COPY(body_quat, 4 * nb);
    COPY(body_ipos, 3 * nb);
    COPY(body_iquat, 4 * nb);
    COPY(body_mass, nb);
    COPY(body_subtreemass, nb);
    COPY(body_inertia, 3 * nb);
    COPY(body_invweight0, 2 * nb);

    COPY(jnt_type, nj);
    COPY(jnt_qposadr, nj);
    COPY(jnt_dofadr, nj);
    COPY(jnt_bodyid, nj);
    CONVERT(jnt_limited, nj);
    COPY(jnt_pos, 3 * nj);
    COPY(jnt_axis, 3 * nj);
    COPY(jnt_stiffness, nj);
    COPY(jnt_range, 2 * nj);
    COPY(jnt_margin, nj);
    COPY(jnt_solref, GDN_NREF * nj);
    COPY(jnt_solimp, GDN_NIMP * nj);

    COPY(dof_bodyid, nv);
    COPY(dof_jntid, nv);
    COPY(dof_parentid, nv);
    COPY(dof_armature, nv);
    COPY(dof_damping, nv);
    COPY(dof_frictionloss, nv);
    COPY(dof_solref, GDN_NREF * nv);
    COPY(dof_solimp, GDN_NIMP * nv);
    COPY(dof_invweight0, nv);

    COPY(geom_type, ng);
    COPY(geom_contype, ng);
    COPY(geom_conaffinity, ng);
    COPY(geom_condim, ng);
    COPY(geom_priority, ng);
    COPY(geom_bodyid, ng);
    COPY(geom_group, ng);
    COPY(geom_size, 3 * ng);
    COPY(geom_pos, 3 * ng);
    COPY(geom_quat, 4 * ng);
    COPY(geom_friction, 3 * ng);
    COPY(geom_solmix, ng);
    COPY(geom_solref, GDN_NREF * ng);
    COPY(geom_solimp, GDN_NIMP * ng);
    COPY(geom_margin, ng);
    COPY(geom_gap, ng);
    COPY(geom_fluid, ng * GDN_NFLUID);
    CONVERT(geom_rgba, 4 * ng);
    COPY(geom_rbound, ng);
    COPY(geom_dataid, ng);

    int np = m->npair;
    COPY(pair_dim, np);
    COPY(pair_geom1, np);
    COPY(pair_geom2, np);
    COPY(pair_signature, np);
    COPY(pair_solref, GDN_NREF * np);
    COPY(pair_solimp, GDN_NIMP * np);
    COPY(pair_margin, np);
    COPY(pair_gap, np);
    COPY(pair_friction, 5 * np);
    COPY(exclude_signature, m->nexclude);
    g->nconmax = m->nconmax;
    g->njmax = m->njmax;

    COPY(site_bodyid, ns);
    COPY(site_pos, 3 * ns);
    COPY(site_quat, 4 * ns);

    COPY(actuator_trntype, nu);
    COPY(actuator_dyntype, nu);
    COPY(actuator_gaintype, nu);
    COPY(actuator_biastype, nu);
    COPY(actuator_trnid, 2 * nu);
    CONVERT(actuator_ctrllimited, nu);
    CONVERT(actuator_forcelimited, nu);
    COPY(actuator_gear, 6 * nu);
    COPY(actuator_cranklength, nu);
    COPY(actuator_gainprm, GDN_NGAIN * nu);
    COPY(actuator_biasprm, GDN_NBIAS * nu);
    COPY(actuator_ctrlrange, 2 * nu);
    COPY(actuator_forcerange, 2 * nu);
    CONVERT(actuator_actlimited, nu);
    COPY(actuator_dynprm, GDN_NDYN * nu);
    COPY(actuator_actrange, 2 * nu);
    COPY(actuator_lengthrange, 2 * nu);
    COPY(actuator_acc0, nu);

    int ne = m->neq;
    COPY(eq_type, ne);
    COPY(eq_obj1id, ne);
    COPY(eq_obj2id, ne);
    CONVERT(eq_active, ne);
    COPY(eq_solref, GDN_NREF * ne);
    COPY(eq_solimp, GDN_NIMP * ne);
    COPY(eq_data, GDN_NEQDATA * ne);

    COPY(key_time, nk);
    COPY(key_qpos, nk * m->nq);
    COPY(key_qvel, nk * nv);
    COPY(key_ctrl, nk * nu);
    COPY(key_act, nk * m->na);
    COPY(key_mpos, nk * m->nmocap * 3);
    COPY(key_mquat, nk * m->nmocap * 4);
    COPY(qpos0, m->nq);
    COPY(qpos_spring, m->nq);

    COPY(name_bodyadr, nb);
    COPY(name_jntadr, nj);
    COPY(name_geomadr, ng);
    COPY(name_siteadr, ns);
    COPY(name_actuatoradr, nu);
    COPY(name_keyadr, nk);
    COPY(names, m->nnames);
    if (copy_meshes(g, m) != GDN_OK) {
        gdn_model_free(g);
        return NULL;
    }
    gdn_model_finalize(g);
    return g;
}
