//Maya ASCII 2020 scene
createNode transform -n "a";
setAttr ".t" -type "double3" -0. 1 2;
createNode mesh -n "m" -p "a";
setAttr -s 3 ".vt[0:2]" -0. 0 0 1 0 0 0 1 0;
