//Maya ASCII 2020 scene
createNode transform -n "a";
createNode expression -n "e";
	setAttr ".ixp" -type "string" ".O[0] = .I[200000000];";
connectAttr "e.out[0]" "a.tx";
