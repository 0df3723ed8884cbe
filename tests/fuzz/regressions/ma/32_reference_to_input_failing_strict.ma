//Maya ASCII 2020 scene
//Name: input.ma
file -r -ns "inside" -dr 1 -rfn "insideRN" "other.ma";
file -r -ns "dot" -dr 1 -rfn "dotRN" "./other.ma";
file -r -ns "up" -dr 1 -rfn "upRN" "../other.ma";
file -r -ns "abs" -dr 1 -rfn "absRN" "/etc/other.ma";
file -r -ns "win" -dr 1 -rfn "winRN" "C:\\projects\\other.ma";
file -r -ns "self" -dr 1 -rfn "selfRN" "inpin" -dr 1 -rfn "winRN" "C:\\projects\\other.ma";
file -r -ns "self" -dr 1 -rfn "selfRN" "input.ma";
file -r -ns "again" -dr 1 -rfn "againRN" "roundtrip.ma";
createNode transform -n "a";
createNode reference -n "insideRN";
	setAttr ".ed" -type "dataReferenceEdits" 
		"insideRN"
		"insideRN" 3
		2 "|inside:b" "translate" " -type \"double3\" 1 2 3"
		5 4 "ine" " 1";
connectAttr "a.tx" "insideRN.phl[1]";
