//Maya ASCII 2025 scene
requires maya "2025";
currentUnit -l centimeter -a degree -t film;
createNode joint -n "j0";
createNode joint -n "j1" -p "j0";
	setAttr ".t" -type "double3" 2 0 0 ;
createNode joint -n "j2" -p "j1";
	setAttr ".t" -type "double3" 2 0 0 ;
createNode ikEffector -n "eff" -p "j1";
	setAttr ".v" no;
	setAttr ".hd" yes;
createNode ikHandle -n "spineIk";
	setAttr ".roc" yes;
	setAttr ".dwut" 4;
	setAttr ".dtce" yes;
createNode transform -n "crv";
createNode nurbsCurve -n "crvShape" -p "crv";
	setAttr ".cc" -type "nurbsCurve" 
		3 1 0 no 3
		6 0 0 0 1 1 1
		4
		0 0 0
		3 1 0
		5 -1 1
		9 2 1
		;
createNode transform -n "ctrl";
createNode nurbsCurve -n "ctrlShape" -p "ctrl";
	setAttr ".cc" -type "nurbsCurve" 
		3 4 2 no 3
		9 -2 -1 0 1 2 3 4 5 6
		7
		1 0 0
		0 0 -1
		-1 0 0
		0 0 1
		1 0 0
		0 0 -1
		-1 0 0
		;
createNode makeNurbCircle -n "makeNurbCircle1";
	setAttr ".nr" -type "double3" 0 1 0 ;
	setAttr ".r" 2;
createNode transform -n "ring";
createNode nurbsCurve -n "ringShape" -p "ring";
createNode ikSplineSolver -n "ikSplineSolver";
createNode curveInfo -n "info";
createNode pointOnCurveInfo -n "poc";
	setAttr ".pr" 0.5;
createNode motionPath -n "motionPath1";
	setAttr ".f" yes;
	setAttr ".fa" 0;
	setAttr ".ua" 1;
	setAttr ".fm" yes;
connectAttr "j2.tx" "eff.tx";
connectAttr "j2.ty" "eff.ty";
connectAttr "j2.tz" "eff.tz";
connectAttr "j2.opm" "eff.opm";
connectAttr "j0.msg" "spineIk.hsj";
connectAttr "eff.hp" "spineIk.hee";
connectAttr "ikSplineSolver.msg" "spineIk.hsv";
connectAttr "crvShape.ws" "spineIk.ic";
connectAttr "ctrl.wm" "spineIk.dwum";
connectAttr "ring.wm" "spineIk.dwue";
connectAttr "makeNurbCircle1.oc" "ringShape.cr";
connectAttr "crvShape.ws" "info.ic";
connectAttr "ringShape.ws" "poc.ic";
connectAttr "ctrlShape.ws" "motionPath1.gp";
connectAttr "motionPath1.ac" "ctrl.t";
