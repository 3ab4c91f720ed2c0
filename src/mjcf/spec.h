// SPDX-License-Identifier: Apache-2.0
// Uncompiled model description read from MJCF (MuJoCo's user-model semantics, before compile).
#ifndef GDN_MJCF_SPEC_H
#define GDN_MJCF_SPEC_H

#include <gradyn/model.h>

#include "math/vec.h"
#include "dynamics/actuator_setconst.h"
#include "mjcf/attr.h"

// MuJoCo's numeric thresholds used by the compiler
#define GDN_MJ_EPS 1e-14    // minimum norm in frame computations
#define GDN_MJ_PI 3.14159265358979323846

// propagate a reader failure (negative return) to the caller
#define GDN_TRY(expr)      \
    do {                   \
        if ((expr) < 0) {  \
            return -1;     \
        }                  \
    } while (0)

// MuJoCo actuator type codes beyond those gradyn supports (for diagnostics)
#define GDN_MJ_NDYN 10
#define GDN_MJ_TRN_UNDEFINED 1000
#define GDN_MJ_TRN_JOINTINPARENT 1
#define GDN_MJ_TRN_SLIDERCRANK 2
#define GDN_MJ_TRN_SITE 4
#define GDN_MJ_TRN_BODY 5
#define GDN_MJ_DYN_INTEGRATOR 1
#define GDN_MJ_DYN_FILTER 2
#define GDN_MJ_DYN_MUSCLE 3
#define GDN_MJ_DYN_USER 4
#define GDN_MJ_GAIN_MUSCLE 2
#define GDN_MJ_GAIN_USER 3
#define GDN_MJ_BIAS_MUSCLE 2
#define GDN_MJ_BIAS_USER 3

// alternative orientation specifications; NaN in [0] means unset
typedef struct gdnSpecAlt {
    double axisangle[4];
    double xyaxes[6];
    double zaxis[3];
    double euler[3];
    double fullinertia[6];
} gdnSpecAlt;

typedef struct gdnSpecJoint {
    int type;
    double pos[3];
    double axis[3];
    int limited; // 0, 1, 2 = auto
    double range[2];
    double stiffness;
    double springdamper[2];
    double solref[GDN_NREF];
    double solimp[GDN_NIMP];
    double margin;
    double ref;
    double springref;
    double armature;
    double damping;
    double frictionloss;
    double solref_friction[GDN_NREF]; // friction-loss solref (solreffriction)
    double solimp_friction[GDN_NIMP]; // friction-loss solimp (solimpfriction)
    // set while reading an instance
    const char* name;
    gdnXmlElem* elem;
    int body;
} gdnSpecJoint;

typedef struct gdnSpecGeom {
    int type;
    double size[3];
    int contype, conaffinity, condim, group;
    int priority; // contact priority (MuJoCo's geom priority)
    double friction[3];
    double solmix;
    double solref[GDN_NREF];
    double solimp[GDN_NIMP];
    double margin, gap;
    double rgba[4];
    double mass_attr; // NaN when mass was not given
    double density;
    double fromto[6]; // NaN in [0] when unset
    double pos[3];
    double quat[4];
    gdnSpecAlt alt;
    int fluid;         // fluidshape="ellipsoid"
    int shellinertia;  // shellinertia="true" (not simulated: policy at compile)
    double fluidcoef[5]; // blunt, slender, angular drag, Kutta and Magnus lift coefficients
    const char* mesh;  // mesh asset name ("" none)
    const char* hfield;
    // instance
    const char* name;
    gdnXmlElem* elem;
    int body;
    double mass;       // compiled
    double inertia[3]; // compiled, principal, in the geom frame
    double fitscale;   // size scale of a primitive fitted to a mesh (1)
    int meshid;        // compiled: mesh asset of a mesh geom, else -1
    double mesh_volume;   // compiled mesh geom: MuJoCo's geom volume (exactmeshinertia rule)
    double mesh_boxsz[3]; // compiled mesh geom: half sizes of the equivalent inertia box
} gdnSpecGeom;

typedef struct gdnSpecSite {
    int type;
    double size[3];
    double pos[3];
    double quat[4];
    double fromto[6];
    gdnSpecAlt alt;
    const char* name;
    gdnXmlElem* elem;
    int body;
} gdnSpecSite;

typedef struct gdnSpecActuator {
    int ctrllimited, forcelimited, actlimited; // 0, 1, 2 = auto
    double ctrlrange[2], forcerange[2], actrange[2];
    double lengthrange[2]; // given (0 0: computed by the compiler for muscles)
    double gear[6];
    int trntype; // GDN_TRN_JOINT, GDN_MJ_TRN_*
    int dyntype, gaintype, biastype;
    double dynprm[GDN_MJ_NDYN];
    double gainprm[GDN_NGAIN];
    double biasprm[GDN_NBIAS];
    const char* target;
    const char* trnattr; // attribute naming the target
    const char* slidersite; // slider-crank's slider site ("" when absent; defaults carry it)
    const char* refsite;    // site transmission's reference site ("" when absent)
    double cranklength;     // slider-crank rod length
    int trnid;           // compiled: joint, tendon or site id
    int trnid2;          // compiled: slider site or reference site id, else -1
    const char* name;
    gdnXmlElem* elem;
} gdnSpecActuator;

// an explicit geom pair (<contact><pair>); MuJoCo 2.2.2 takes none of its values from the geoms
typedef struct gdnSpecPair {
    const char* geom1;
    const char* geom2;
    int condim;
    double friction[5]; // tangent1, tangent2, spin, roll1, roll2
    double solref[GDN_NREF];
    double solimp[GDN_NIMP];
    double margin, gap;
    gdnXmlElem* elem;
    // compiled: geom ids (geom1's body id <= geom2's) and ((body1 + 1) << 16) + body2 + 1
    int geom1_id, geom2_id, signature;
} gdnSpecPair;

// an excluded body pair (<contact><exclude>)
typedef struct gdnSpecExclude {
    const char* body1;
    const char* body2;
    gdnXmlElem* elem;
    int signature; // compiled: ((body1 + 1) << 16) + body2 + 1, body1 <= body2
} gdnSpecExclude;

// a tendon (<tendon><fixed> or <spatial>; MuJoCo 2.2.2's mjCTendon values)
typedef struct gdnSpecTendon {
    int limited; // 0, 1, 2 = auto
    double width; // spatial: must be positive (visual otherwise)
    double range[2];
    double solref_lim[GDN_NREF], solimp_lim[GDN_NIMP];
    double solref_fri[GDN_NREF], solimp_fri[GDN_NIMP];
    double margin, stiffness, damping, frictionloss;
    double springlength; // < 0: the length at qpos_spring (computed by the loader)
    // instance
    const char* name;
    gdnXmlElem* elem;
    int wrapadr, nwrap; // its path in spec->wraps
} gdnSpecTendon;

// one object of a tendon's path (<joint joint coef>, <site site>, <pulley divisor>)
typedef struct gdnSpecWrap {
    int type;          // gdnWrapType
    const char* name;  // joint, site or geom name ("" for a pulley)
    const char* side;  // a wrapping geom's side site ("" none)
    double prm;        // coef (joint), divisor (pulley), side site id or -1 (geom, compiled)
    gdnXmlElem* elem;
    int objid;         // compiled: joint, site or geom id (-1 for a pulley)
} gdnSpecWrap;

// an equality constraint (<equality><connect>, <weld>, <joint> or <tendon>)
typedef struct gdnSpecEquality {
    int type;          // GDN_EQ_CONNECT, GDN_EQ_WELD, GDN_EQ_JOINT or GDN_EQ_TENDON (0-3)
    const char* name1; // body1, joint1 or tendon1
    const char* name2; // body2 ("" = the world), joint2 or tendon2 ("" = absent)
    double data[GDN_NEQDATA]; // MuJoCo's eq_data before compile (anchor, relpose, torquescale;
                              // polycoef)
    int active;
    double solref[GDN_NREF];
    double solimp[GDN_NIMP];
    gdnXmlElem* elem;
} gdnSpecEquality;

typedef struct gdnSpecDefault {
    const char* name;
    int parent;
    gdnSpecJoint joint;
    gdnSpecGeom geom;
    gdnSpecSite site;
    gdnSpecActuator actuator;
    gdnSpecPair pair;
    gdnSpecTendon tendon;
    gdnSpecEquality equality; // <default><equality active solref solimp>
    double mesh_scale[3]; // <default><mesh scale>
} gdnSpecDefault;

typedef struct gdnSpecBody {
    const char* name;
    gdnXmlElem* elem;
    int parent;
    int def;        // defaults class of its children (childclass)
    int depth;
    double pos[3];  // NaN in [0]: unset
    double quat[4];
    gdnSpecAlt alt;
    int explicit_inertial;
    double ipos[3]; // NaN in [0]: unset
    double iquat[4];
    double mass;
    double inertia[3];
    gdnSpecAlt ialt;
    int mocap;
    // compiled
    int weldid;
    int njnt, ngeom, nsite, dofnum;
} gdnSpecBody;

typedef struct gdnSpecKey {
    const char* name;
    gdnXmlElem* elem;
    double time;
    double* qpos;
    int nqpos;
    double* qvel;
    int nqvel;
    double* ctrl;
    int nctrl;
    double* mpos;  // (nmpos) mocap positions
    double* mquat; // (nmquat) mocap orientations
    double* act;   // (nact) activations
    int nact, nmpos, nmquat;
} gdnSpecKey;

// a mesh asset (<asset><mesh>), compiled as MuJoCo 2.2.2's user_mesh does (src/mjcf/mesh.h)
typedef struct gdnSpecMesh {
    const char* name;
    int named;         // the name was given (not taken from the file name)
    const char* file;  // "" when the vertices are inline
    double scale[3];
    double refpos[3];
    double refquat[4]; // as given (normalized when used)
    double* vertex;    // inline vertex data (nvertex x 3), NULL when absent
    int nvertex;
    double* face_attr; // inline face data (nface_attr x 3 vertex ids), NULL when absent
    int nface_attr;
    double density;    // geom density of the mesh's default class (MuJoCo's inertia scale)
    gdnXmlElem* elem;
    // compiled (pool memory; nvert -1 before compiling): float vertices re-centred at the
    // centre of mass and rotated to principal axes, triangles, the hull graph (ngraph 0: none)
    float* vert;
    int nvert;
    int* face;
    int nface;
    int* graph;
    int ngraph;
    int needhull;      // a colliding mesh geom uses it
    double pos[3];     // centre of mass in the mesh's input frame (MuJoCo's pos_volume)
    double quat[4];    // principal axes (quat_volume)
    double boxsz[3];   // half sizes of the equivalent inertia box (boxsz_volume)
    double volume;
    double aabb[3];    // largest |vertex| per axis after the transformation
    const char* invalid; // why geoms cannot use it (degenerate volume or inertia), or NULL
} gdnSpecMesh;

// a sensor (<sensor> children, MuJoCo 2.2.2's mjCSensor before compile; mjcf/sensor.c)
typedef struct gdnSpecSensor {
    int type;            // gdnSensorType
    int objtype;         // gdnObjType (GDN_OBJ_UNKNOWN: none)
    const char* objname; // "" when absent
    int reftype;         // gdnObjType of the reference frame (GDN_OBJ_UNKNOWN: none)
    const char* refname;
    double cutoff, noise;
    int dim, datatype, needstage; // given for user sensors, else set by the compiler
    const char* name;
    gdnXmlElem* elem;
} gdnSpecSensor;

// compiler settings (MJCF <compiler>)
typedef struct gdnSpecCompiler {
    int autolimits;
    double boundmass, boundinertia, settotalmass;
    int balanceinertia;
    int degree;
    char eulerseq[4];
    int inertiafromgeom; // 0 false, 1 true, 2 auto
    int inertiagrouprange[2];
    int discardvisual;
    const char* meshdir;  // NULL when unset
    int exactmeshinertia; // 0 (MuJoCo's default): volumes of pyramids taken as |volume|
    int convexhull;       // 1 (default): hull graphs for colliding meshes
    int global;           // coordinate="global": frames given in the world frame
    gdnLengthRangeOpt lengthrange; // <compiler><lengthrange>
} gdnSpecCompiler;

// the whole uncompiled model
typedef struct gdnSpec {
    gdnPool* pool;
    gdnDiag* diag;
    gdnSpecCompiler compiler;
    gdnOption opt;
    int size_nkey; // <size nkey>: at least this many keyframes
    int size_nconmax, size_njmax; // <size nconmax njmax>; -1 when not given (automatic)
    gdnSpecDefault* defs;
    int ndef, capdef;
    gdnSpecBody* bodies; // depth-first order, 0 = world
    int nbody, capbody;
    gdnSpecJoint* joints; // reading order (sorted by body before compiling)
    int njnt, capjnt;
    gdnSpecGeom* geoms;
    int ngeom, capgeom;
    gdnSpecSite* sites;
    int nsite, capsite;
    gdnSpecActuator* actuators;
    int nu, capu;
    gdnSpecKey* keys;
    int nkey, capkey;
    gdnSpecMesh* meshes;
    int nmesh, capmesh;
    gdnSpecEquality* equalities;
    int neq, capeq;
    gdnSpecPair* pairs; // reading order (sorted by signature when compiled)
    int npair, cappair;
    gdnSpecExclude* excludes;
    int nexclude, capexclude;
    gdnSpecTendon* tendons;
    int ntendon, captendon;
    gdnSpecWrap* wraps; // every tendon's path objects, tendon after tendon
    int nwrap, capwrap;
    gdnSpecSensor* sensors; // file order
    int nsensor, capsensor;
    gdnPenalty penalty;    // <custom><numeric name="gradyn_penalty" data="height k c"/>
    const char* model_dir; // directory of the main file: asset paths resolve against it
} gdnSpec;

#endif
