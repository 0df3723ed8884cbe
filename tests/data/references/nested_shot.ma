//Maya ASCII 2020 scene
//Name: nested_shot.ma
//Codeset: UTF-8
file -rdi 1 -ns "set" -rfn "setRN" -op "v=0;" -typ "mayaAscii" "prop.ma";
file -rdi 2 -ns "hero" -rfn "set:heroRN" -op "v=0;" -typ "mayaAscii" "rig.ma";
file -r -ns "set" -dr 1 -rfn "setRN" -op "v=0;" -typ "mayaAscii" "prop.ma";
requires maya "2020";
currentUnit -l centimeter -a degree -t film;
createNode reference -n "setRN";
	setAttr ".ed" -type "dataReferenceEdits" 
		"setRN"
		"setRN" 1
		2 "|set:set_grp" "translate" " -type \"double3\" 1 0 10"
		"set:heroRN" 1
		2 "|set:set_grp|set:hero:rig_grp|set:hero:ctrl" "bend" " 3";
// End of nested_shot.ma
