#!/bin/bash
echo "1..0"
