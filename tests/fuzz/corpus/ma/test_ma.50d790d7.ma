//Maya ASCII 2020 scene
createNode transform -n "a";
setAttr ".tx" 2 // two
