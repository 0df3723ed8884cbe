//Maya ASCII 2020 scene
//Name: prop.ma
//Codeset: UTF-8
file -rdi 1 -ns "hero" -rfn "heroRN" -op "v=0;" -typ "mayaAscii" "rig.ma";
file -r -ns "hero" -dr 1 -rfn "heroRN" -op "v=0;" -typ "mayaAscii" "rig.ma";
requires maya "2020";
currentUnit -l centimeter -a degree -t film;
createNode transform -n "set_grp";
	setAttr ".t" -type "double3" 0 0 10;
createNode reference -n "heroRN";
	setAttr ".ed" -type "dataReferenceEdits" 
		"heroRN"
		"heroRN" 2
		2 "|hero:rig_grp|hero:ctrl" "bend" " 2"
		0 "|hero:rig_grp" "|set_grp" "-s -r ";
// End of prop.ma
