module github.com/vianic/vianic

go 1.26
