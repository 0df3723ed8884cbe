//Maya ASCII 2020 scene
requires maya "2020";
createNode transform -n "keep";
	setAttr ".tx" 3;
