//Maya ASCII 2020 scene
requires maya "2020";
createNode fancyThing -n "f";
	setAttr ".foo" 3;
createNode transform -n "t";
	setAttr ".tx" 2;
