// SPDX-License-Identifier: Apache-2.0
// Input checks of the public entries: the data's model signature, the options, time.
#include "model/validate.h"

#include <float.h>
#include <math.h>

// every disable / enable bit the library knows
#define GDN_DSBL_ALL ((GDN_DSBL_SENSOR << 1) - 1)
#define GDN_ENBL_ALL \
    (GDN_ENBL_OVERRIDE | GDN_ENBL_ENERGY | GDN_ENBL_SENSORNOISE | GDN_ENBL_ONESIDED)

gdnStatus gdn_check_options(const gdnOption* o) {
    // one flag of all the ranges, no branch per field; every comparison is written so that NaN
    // fails it (|x| <= DBL_MAX: finite)
    int good = (o->timestep > 0) & (o->timestep <= DBL_MAX);
    good &= (fabs(o->gravity[0]) <= DBL_MAX) & (fabs(o->gravity[1]) <= DBL_MAX) &
            (fabs(o->gravity[2]) <= DBL_MAX);
    good &= ((unsigned)o->integrator <= GDN_INT_IMPLICIT) & ((unsigned)o->solver <= GDN_SOL_NEWTON) &
            ((unsigned)o->cone <= GDN_CONE_ELLIPTIC) &
            ((unsigned)o->collision <= GDN_COL_DYNAMIC);
    good &= (o->iterations >= 0) & (o->tolerance >= 0) & (o->tolerance <= DBL_MAX);
    good &= (o->impratio > 0) & (o->impratio <= DBL_MAX);
    good &= (o->mpr_iterations >= 0) & (o->mpr_tolerance >= 0) & (o->mpr_tolerance <= DBL_MAX);
    good &= (o->box_edge_bias >= 0) & (o->box_edge_bias <= DBL_MAX);
    good &= (fabs(o->wind[0]) <= DBL_MAX) & (fabs(o->wind[1]) <= DBL_MAX) &
            (fabs(o->wind[2]) <= DBL_MAX) & (fabs(o->density) <= DBL_MAX) &
            (fabs(o->viscosity) <= DBL_MAX);
    good &= ((o->disableflags & ~GDN_DSBL_ALL) | (o->enableflags & ~GDN_ENBL_ALL)) == 0;
    if (good && (o->enableflags & GDN_ENBL_OVERRIDE)) {
        // the override parameters replace the contacts' margin, solref and solimp
        double sum = o->o_margin - o->o_margin;
        for (int i = 0; i < GDN_NREF; i++) {
            sum += o->o_solref[i] - o->o_solref[i];
        }
        for (int i = 0; i < GDN_NIMP; i++) {
            sum += o->o_solimp[i] - o->o_solimp[i];
        }
        good = sum == 0;
    }
    return good ? GDN_OK : GDN_ERR_ARG;
}

gdnStatus gdn_check_call(const gdnModel* m, const gdnData* d) {
    gdnStatus status = gdn_check_model_data(m, d);
    return status == GDN_OK ? gdn_check_options(&m->opt) : status;
}

gdnStatus gdn_check_step(const gdnModel* m, const gdnData* d) {
    gdnStatus status = gdn_check_call(m, d);
    // the step writes time + h: refuse before anything changes when it is not finite
    if (status == GDN_OK && !(fabs(d->time + m->opt.timestep) <= DBL_MAX)) {
        status = GDN_ERR_NONFINITE;
    }
    return status;
}
