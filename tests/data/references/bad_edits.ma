//Maya ASCII 2020 scene
//Name: bad_edits.ma
//Codeset: UTF-8
file -rdi 1 -ns "hero" -rfn "heroRN" -op "v=0;" -typ "mayaAscii" "rig.ma";
file -r -ns "hero" -dr 1 -rfn "heroRN" -op "v=0;" -typ "mayaAscii" "rig.ma";
requires maya "2020";
currentUnit -l centimeter -a degree -t film;
createNode transform -n "driver";
createNode reference -n "heroRN";
	setAttr ".ed" -type "dataReferenceEdits" 
		"heroRN"
		"heroRN" 7
		2 "|hero:rig_grp|hero:no_such_node" "translate" " -type \"double3\" 1 2 3"
		2 "|hero:rig_grp|hero:ctrl" "noSuchAttr" " 4"
		8 "|hero:rig_grp|hero:ctrl" "translateX"
		3 "" ":initialShadingGroup.dagSetMembers" "-na"
		5 4 "heroRN" "|hero:rig_grp|hero:ctrl.notThere" "heroRN.placeHolderList[1]" ""
		2 "|hero:rig_grp|hero:ctrl" "bend" " 9"
		2 "|hero:rig_grp|hero:ctrl" "translateX" " 1; setAttr \"hero:ctrl.bend\" 100";
connectAttr "driver.tx" "heroRN.phl[1]";
// End of bad_edits.ma
