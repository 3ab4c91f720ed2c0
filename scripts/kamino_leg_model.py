#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Writes tests/models/kamino_mech_leg.xml (two Jansen legs on one crank, assembled exactly):
#   python3 scripts/kamino_leg_model.py > tests/models/kamino_mech_leg.xml
import math
import sys

# Jansen's link lengths (his 'holy numbers') scaled to metres
S=0.01
a,b,c,d,e,f,g,h,i,j,k,l,m=[x*S for x in (38,41.5,39.3,40.1,55.8,39.4,36.7,65.7,49,50,61.9,7.8,15)]
# the intersection of the circles (P1, r1) and (P2, r2) that pick chooses
def circ(P1,r1,P2,r2,pick):
    dx,dy=P2[0]-P1[0],P2[1]-P1[1]; D=math.hypot(dx,dy)
    x=(r1*r1-r2*r2+D*D)/(2*D); hh=math.sqrt(r1*r1-x*x)
    ex,ey=dx/D,dy/D
    s1=(P1[0]+x*ex-hh*ey,P1[1]+x*ey+hh*ex); s2=(P1[0]+x*ex+hh*ey,P1[1]+x*ey-hh*ex)
    return pick(s1,s2)
# one leg's joints at crank angle th (x-z plane, crank axle O at the origin): crank pin A,
# fixed pivot P; C, D on links from A; E on the rigid triangle P-C-E; F on link E-F; foot G on
# the rigid triangle D-F-G
def leg(th):
    O=(0.0,0.0); P=(-a,-l); A=(m*math.cos(th),m*math.sin(th))
    C=circ(A,j,P,b,lambda s1,s2: s1 if s1[1]>s2[1] else s2)
    D=circ(A,k,P,c,lambda s1,s2: s1 if s1[1]<s2[1] else s2)
    E=circ(P,d,C,e,lambda s1,s2: s1 if s1[0]<s2[0] else s2)
    F=circ(E,f,D,g,lambda s1,s2: s1 if s1[0]<s2[0] else s2)
    G=circ(F,h,D,i,lambda s1,s2: s1 if s1[1]<s2[1] else s2)
    return dict(O=O,P=P,A=A,C=C,D=D,E=E,F=F,G=G)
# crossing angle where the two feet (phase 0 and 180) are at the same height
def dz(t): return leg(t)['G'][1]-leg(t+math.pi)['G'][1]
lo,hi=math.radians(80),math.radians(115)
for _ in range(80):
    mid=0.5*(lo+hi)
    if dz(lo)*dz(mid)<=0: hi=mid
    else: lo=mid
th0=0.5*(lo+hi)
rf=0.02
L1=leg(th0); L2=leg(th0+math.pi)
zmin=min(L1['G'][1],L2['G'][1])
z0=-zmin+rf
def f(v): return "%.12g"%v
def p3(x,y,z): return "%s %s %s"%(f(x),f(y),f(z))
def rel(Q,R): return (Q[0]-R[0],Q[1]-R[1])
out=[]
w=out.append
w('<!-- SPDX-License-Identifier: Apache-2.0 -->')
w("""<!-- Kamino loop test: a walker with two Theo Jansen legs (holy numbers x 0.01 m: crank 0.15,
     pivot offset 0.38 x 0.078) driven 180 deg apart by one crank, on a carriage sliding along x
     on a rail (damping 5 N s/m) and a chassis sliding along z on it; 3 loops per leg closed by
     equality connects (6 in all; hinges about -y). Assembled at crank angle %.9f rad,
     where both feet (spheres r 0.02) touch the floor; a velocity actuator (kv 5 on a 3 kg
     flywheel of radius 0.12: kv h / I = 0.46) turns the crank: the walker stands at ctrl 0 and
     steps (walks toward -x) at ctrl > 0. Generated from the link lengths; positions exact to
     1e-12 m. -->"""%th0)
w('<mujoco model="kamino_mech_leg">')
w('  <compiler angle="radian"/>')
w('  <option timestep="0.002"/>')
w('  <default>')
w('    <joint type="hinge" axis="0 -1 0"/>')
w('    <geom type="capsule" size="0.008" contype="0" conaffinity="0" density="1000"/>')
w('    <equality solref="0.004 1"/>')
w('  </default>')
w('  <worldbody>')
w('    <geom name="floor" type="plane" size="5 5 0.1" contype="0" conaffinity="1" friction="1 0.005 0.0001"/>')
w('    <body name="carriage" pos="0 0 %s">'%f(z0))
w('      <joint name="rail_x" type="slide" axis="1 0 0" damping="5"/>')
w('      <geom name="carriage" type="box" size="0.05 0.05 0.02" pos="0 0 0.3" mass="0.5"/>')
w('      <body name="chassis" pos="0 0 0">')
w('        <joint name="lift_z" type="slide" axis="0 0 1"/>')
w('        <geom name="chassis" type="box" size="0.25 0.08 0.03" pos="-0.19 0 0.06" mass="2"/>')
w('        <body name="crank" pos="0 0 0">')
w('          <joint name="crank"/>')
w('          <geom name="axle" fromto="0 -0.06 0 0 0.06 0"/>')
w('          <geom name="flywheel" type="cylinder" fromto="0 -0.01 0 0 0.01 0" size="0.12" mass="3"/>')
ys=[0.04,-0.04]; Ls=[L1,L2]
for n,(L,y) in enumerate(zip(Ls,ys)):
    A=L['A']; w('          <geom name="crank%d" fromto="0 %s 0 %s"/>'%(n,f(y),p3(A[0],y,A[1])))
for n,(L,y) in enumerate(zip(Ls,ys)):
    A,C,D=L['A'],L['C'],L['D']
    c=rel(C,A); d=rel(D,A)
    w('          <body name="j%d" pos="%s">'%(n,p3(A[0],y,A[1])))
    w('            <joint name="j%d"/>'%n)
    w('            <geom name="j%d" fromto="0 0 0 %s"/>'%(n,p3(c[0],0,c[1])))
    w('          </body>')
    w('          <body name="k%d" pos="%s">'%(n,p3(A[0],y,A[1])))
    w('            <joint name="k%d"/>'%n)
    w('            <geom name="k%d" fromto="0 0 0 %s"/>'%(n,p3(d[0],0,d[1])))
    w('          </body>')
w('        </body>')
for n,(L,y) in enumerate(zip(Ls,ys)):
    P,C,D,E,F,G=L['P'],L['C'],L['D'],L['E'],L['F'],L['G']
    c=rel(C,P); e=rel(E,P); d=rel(D,P); fe=rel(F,E); df=rel(D,F); gf=rel(G,F)
    w('        <body name="tri%d" pos="%s">'%(n,p3(P[0],y,P[1])))
    w('          <joint name="tri%d"/>'%n)
    w('          <geom name="tri%d_b" fromto="0 0 0 %s"/>'%(n,p3(c[0],0,c[1])))
    w('          <geom name="tri%d_e" fromto="%s %s"/>'%(n,p3(c[0],0,c[1]),p3(e[0],0,e[1])))
    w('          <geom name="tri%d_d" fromto="%s 0 0 0"/>'%(n,p3(e[0],0,e[1])))
    w('          <body name="f%d" pos="%s">'%(n,p3(e[0],0,e[1])))
    w('            <joint name="f%d"/>'%n)
    w('            <geom name="f%d" fromto="0 0 0 %s"/>'%(n,p3(fe[0],0,fe[1])))
    w('            <body name="foot%d" pos="%s">'%(n,p3(fe[0],0,fe[1])))
    w('              <joint name="foot%d"/>'%n)
    w('              <geom name="foot%d_g" fromto="0 0 0 %s"/>'%(n,p3(df[0],0,df[1])))
    w('              <geom name="foot%d_i" fromto="%s %s"/>'%(n,p3(df[0],0,df[1]),p3(gf[0],0,gf[1])))
    w('              <geom name="foot%d_h" fromto="%s 0 0 0"/>'%(n,p3(gf[0],0,gf[1])))
    w('              <geom name="sole%d" type="sphere" size="%s" pos="%s" contype="1" conaffinity="0"/>'%(n,f(rf),p3(gf[0],0,gf[1])))
    w('            </body>')
    w('          </body>')
    w('        </body>')
    w('        <body name="c%d" pos="%s">'%(n,p3(P[0],y,P[1])))
    w('          <joint name="c%d"/>'%n)
    w('          <geom name="c%d" fromto="0 0 0 %s"/>'%(n,p3(d[0],0,d[1])))
    w('        </body>')
w('      </body>')
w('    </body>')
w('  </worldbody>')
w('  <equality>')
for n,L in enumerate(Ls):
    A,C,D,F=L['A'],L['C'],L['D'],L['F']
    c=rel(C,A); d=rel(D,A); df=rel(D,F)
    w('    <connect name="loop%d_c" body1="j%d" body2="tri%d" anchor="%s"/>'%(n,n,n,p3(c[0],0,c[1])))
    w('    <connect name="loop%d_d" body1="k%d" body2="c%d" anchor="%s"/>'%(n,n,n,p3(d[0],0,d[1])))
    w('    <connect name="loop%d_foot" body1="foot%d" body2="c%d" anchor="%s"/>'%(n,n,n,p3(df[0],0,df[1])))
w('  </equality>')
w('  <actuator>')
w('    <velocity name="crank_speed" joint="crank" kv="5"/>')
w('  </actuator>')
w('</mujoco>')
print("\n".join(out))
sys.stderr.write("th0=%.15g z0=%.15g\n"%(th0,z0))
