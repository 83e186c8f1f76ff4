#!/bin/sh
# A reference solution: proves the check can pass (bench tests, scripted model).
set -e
python3 -c 'import json,csv,sys; w=csv.writer(open("items.csv","w",newline=""),lineterminator="\n"); w.writerow(["id","name","price"]); [w.writerow([i["id"],i["name"],i["price"]]) for i in json.load(open("items.json"))]'
