//Maya ASCII 2020 scene
createNode transform -n "open;
setAttr ".tx" 1;
