//Maya ASCII 2020 scene
createNode joint -n "a";
	setAttr ".t" -type "double3" 1 2