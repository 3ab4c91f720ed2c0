// SPDX-License-Identifier: Apache-2.0
// Internal: MuJoCo 2.2.2's muscle model (gain, passive bias, activation dynamics) with the
// exact partial derivatives of each on the branch the value takes.
#ifndef GDN_DYNAMICS_MUSCLE_H
#define GDN_DYNAMICS_MUSCLE_H

// prm = gainprm (or biasprm): range[2], force, scale, lmin, lmax, vmax, fpmax, fvmax.
// The active gain -F FL(L) FV(V), L = range0 + (len - lengthrange0) / L0, V = vel / (L0 vmax),
// L0 = (lengthrange1 - lengthrange0) / (range1 - range0), F = force, or scale / acc0 when
// force < 0. dlen, dvel (NULL: not wanted) receive d gain / d len, d gain / d vel.
double gdn_muscle_gain(double len, double vel, const double lengthrange[2], double acc0,
                       const double* prm, double* dlen, double* dvel);

// the passive force -F fpmax P(L) (P: 0 below L = 1, half-quadratic to b = (1 + lmax) / 2,
// linear beyond); dlen (NULL: not wanted) receives d bias / d len
double gdn_muscle_bias(double len, const double lengthrange[2], double acc0, const double* prm,
                       double* dlen);

// act_dot = (clip(ctrl, 0, 1) - act) / tau, tau = tau_act (0.5 + 1.5 a) when the control
// exceeds act, tau_deact / (0.5 + 1.5 a) otherwise, a = clip(act, 0, 1) (Millard et al. 2013);
// prm = (tau_act, tau_deact); dctrl, dact (NULL: not wanted) receive the partials
double gdn_muscle_dynamics(double ctrl, double act, const double* prm, double* dctrl,
                           double* dact);

#endif
