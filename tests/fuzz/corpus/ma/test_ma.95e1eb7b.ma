//Maya ASCII 2020 scene
createNode transform -n "b";
setAttr "nobody.tx" 1;
setAttr "b.tx" 2;
