//Maya ASCII 2020 scene
//Name: missing.ma
//Codeset: UTF-8
file -rdi 1 -ns "ghost" -rfn "ghostRN" -op "v=0;" -typ "mayaAscii" "/no/such/folder/ghost_rig.ma";
file -r -ns "ghost" -dr 1 -rfn "ghostRN" -op "v=0;" -typ "mayaAscii" "/no/such/folder/ghost_rig.ma";
requires maya "2020";
currentUnit -l centimeter -a degree -t film;
createNode transform -n "driver";
	setAttr ".t" -type "double3" 1 2 3;
createNode reference -n "ghostRN";
	setAttr ".phl[1]" 0;
	setAttr ".ed" -type "dataReferenceEdits" 
		"ghostRN"
		"ghostRN" 2
		2 "|ghost:root" "translate" " -type \"double3\" 1 2 3"
		5 4 "ghostRN" "|ghost:root.rotateX" "ghostRN.placeHolderList[1]" "";
connectAttr "driver.tx" "ghostRN.phl[1]";
// End of missing.ma
