//Maya ASCII 2020 scene
createNode transform -n "a";
addAttr -ln "note" -dt "string";
setAttr ".note" -type "string" "x // y /* z";