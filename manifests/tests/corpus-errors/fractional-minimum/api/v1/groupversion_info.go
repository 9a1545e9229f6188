// +groupName=e1.errors.rkb.io
package v1
