//Maya ASCII 2020 scene
//Name: shot.ma
//Codeset: UTF-8
file -rdi 1 -ns "hero" -rfn "heroRN" -op "v=0;" -typ "mayaAscii" "rig.ma";
file -r -ns "hero" -dr 1 -rfn "heroRN" -op "v=0;" -typ "mayaAscii" "rig.ma";
requires maya "2020";
currentUnit -l centimeter -a degree -t film;
fileInfo "application" "maya";
createNode transform -n "driver";
	setAttr ".t" -type "double3" 5 2 0;
createNode reference -n "heroRN";
	setAttr ".fn[0]" -type "string" "rig.ma";
	setAttr -s 3 ".phl";
	setAttr ".phl[1]" 0;
	setAttr ".phl[2]" 0;
	setAttr ".phl[3]" 0;
	setAttr ".ed" -type "dataReferenceEdits" 
		"heroRN"
		"heroRN" 0
		"heroRN" 8
		2 "|hero:rig_grp|hero:ctrl" "translate" " -type \"double3\" 3 2 0"
		2 "|hero:rig_grp|hero:ctrl" "bend" " -k 1 0.5"
		2 "|hero:rig_grp" "visibility" " -av 1"
		1 "|hero:rig_grp|hero:ctrl" "twist" "tw" " -ci 1 -k 1 -at \"double\""
		2 "|hero:rig_grp|hero:ctrl" "twist" " 7"
		3 "|hero:rig_grp|hero:ctrl.bend" "|hero:rig_grp|hero:root_jnt.rotateY" ""
		5 4 "heroRN" "|hero:rig_grp.translateX" "heroRN.placeHolderList[1]" ""
		5 3 "heroRN" "|hero:rig_grp|hero:ctrl.bend" "heroRN.placeHolderList[2]" "";
createNode transform -n "follower";
connectAttr "driver.tx" "heroRN.phl[1]";
connectAttr "heroRN.phl[2]" "follower.ty";
// End of shot.ma
