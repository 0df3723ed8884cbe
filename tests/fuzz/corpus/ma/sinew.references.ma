//Maya ASCII 2020 scene
//Name: input.ma
file -rdi 1 -ns "x" -rfn "xRN" -op "v=0;" -typ "mayaAscii" "other.ma";
file -r -ns "x" -dr 1 -rfn "xRN" -op "v=0;" -typ "mayaAscii" "other.ma";
requires maya "2020";
currentUnit -l centimeter -a degree -t film;
createNode transform -n "driver";
	setAttr ".t" -type "double3" 1 2 3;
createNode fosterParent -n "xRNfosterParent1";
createNode transform -n "child" -p "xRNfosterParent1";
createNode reference -n "xRN";
	setAttr ".phl[1]" 0;
	setAttr ".ed" -type "dataReferenceEdits" 
		"xRN"
		"xRN" 0
		"xRN" 9
		2 "|x:b" "translate" " -type \"double3\" 1 2 3"
		2 "|x:b" "visibility" " -av 1"
		2 "|x:b" "scaleX" " -k 0 2"
		1 "|x:b" "extra" "ex" " -ci 1 -k 1 -dv 1 -smn 0 -smx 1 -at \"double\""
		0 "|xRNfosterParent1|child" "|x:b" "-s -r "
		3 "|x:b.translateX" "|x:b.rotateY" ""
		4 "|x:b" "extra" ""
		5 4 "xRN" "|x:b.rotateX" "xRN.placeHolderList[1]" ""
		8 "|x:b" "translateZ";
connectAttr "driver.tx" "xRN.phl[1]";
// End of input.ma
